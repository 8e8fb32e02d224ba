import { describe, expect, it } from 'vitest';
import { InProcessEventBus, defineEvent } from '../../src/index.js';
import { isObserved } from '../../src/runtime/event-bus.js';

class OrderPlaced extends defineEvent<{ readonly orderId: string }>() {}
class OrderCancelled extends defineEvent<{ readonly orderId: string }>() {}
class RushOrderPlaced extends OrderPlaced {}

describe('InProcessEventBus', () => {
  it('delivers an event to the handlers of its class, in subscription order', () => {
    const bus = new InProcessEventBus();
    const seen: string[] = [];
    bus.subscribe(OrderPlaced, (event) => seen.push(`first ${event.orderId}`));
    bus.subscribe(OrderPlaced, (event) => seen.push(`second ${event.orderId}`));
    bus.subscribe(OrderCancelled, (event) => seen.push(`cancelled ${event.orderId}`));

    const result = bus.dispatch(new OrderPlaced({ orderId: 'o-1' }));

    expect(seen).toEqual(['first o-1', 'second o-1']);
    expect(result).toEqual({ handlersInvoked: 2, errors: [], ok: true });
  });

  it('matches exactly the class: a subclass event does not reach the parent’s handlers', () => {
    const bus = new InProcessEventBus();
    const seen: string[] = [];
    bus.subscribe(OrderPlaced, () => seen.push('placed'));
    bus.subscribe(RushOrderPlaced, () => seen.push('rush'));

    bus.dispatch(new RushOrderPlaced({ orderId: 'o-2' }));

    expect(seen).toEqual(['rush']);
  });

  it('reports a dispatch nobody listens to as zero handlers, ok', () => {
    expect(new InProcessEventBus().dispatch(new OrderPlaced({ orderId: 'o' }))).toEqual({
      handlersInvoked: 0,
      errors: [],
      ok: true,
    });
  });

  it('keeps delivering after a handler throws, and counts the error', () => {
    const bus = new InProcessEventBus();
    const seen: string[] = [];
    const failure = new Error('handler broke');
    bus.subscribe(OrderPlaced, () => seen.push('before'));
    bus.subscribe(OrderPlaced, () => {
      throw failure;
    });
    bus.subscribe(OrderPlaced, () => seen.push('after'));
    bus.subscribeAll(() => seen.push('catch-all'));

    const result = bus.dispatch(new OrderPlaced({ orderId: 'o-3' }));

    expect(seen).toEqual(['before', 'after', 'catch-all']);
    expect(result.handlersInvoked).toBe(4);
    expect(result.errors).toEqual([failure]);
    expect(result.ok).toBe(false);
  });

  it('records every throwing handler, whatever it throws', () => {
    const bus = new InProcessEventBus();
    bus.subscribe(OrderPlaced, () => {
      throw new Error('one');
    });
    bus.subscribe(OrderPlaced, () => {
      // eslint-disable-next-line @typescript-eslint/only-throw-error -- handlers may throw anything
      throw 'two';
    });
    const result = bus.dispatch(new OrderPlaced({ orderId: 'o' }));
    expect(result.errors).toEqual([new Error('one'), 'two']);
  });

  it('stops delivering to a handler once unsubscribed; unsubscribing twice is harmless', () => {
    const bus = new InProcessEventBus();
    const seen: string[] = [];
    const off = bus.subscribe(OrderPlaced, (event) => seen.push(event.orderId));

    bus.dispatch(new OrderPlaced({ orderId: 'a' }));
    off();
    off();
    const result = bus.dispatch(new OrderPlaced({ orderId: 'b' }));

    expect(seen).toEqual(['a']);
    expect(result.handlersInvoked).toBe(0);
  });

  it('removes one subscription per unsubscribe when a handler is subscribed twice', () => {
    const bus = new InProcessEventBus();
    let count = 0;
    const handler = (): void => {
      count += 1;
    };
    const offFirst = bus.subscribe(OrderPlaced, handler);
    bus.subscribe(OrderPlaced, handler);

    offFirst();
    offFirst();
    bus.dispatch(new OrderPlaced({ orderId: 'x' }));

    expect(count).toBe(1);
  });

  it('delivers every event to catch-all handlers after the typed ones, until unsubscribed', () => {
    const bus = new InProcessEventBus();
    const seen: string[] = [];
    const offAll = bus.subscribeAll((event) => seen.push(`all ${event.constructor.name}`));
    bus.subscribe(OrderCancelled, () => seen.push('typed'));

    bus.dispatch(new OrderCancelled({ orderId: 'c' }));
    bus.dispatch(new OrderPlaced({ orderId: 'p' }));
    offAll();
    bus.dispatch(new OrderPlaced({ orderId: 'q' }));

    expect(seen).toEqual(['typed', 'all OrderCancelled', 'all OrderPlaced']);
  });

  it('finishes a dispatch with the handlers present when it started', () => {
    const bus = new InProcessEventBus();
    const seen: string[] = [];
    let offSecond = (): void => undefined;
    bus.subscribe(OrderPlaced, () => {
      seen.push('first');
      offSecond();
    });
    offSecond = bus.subscribe(OrderPlaced, () => seen.push('second'));

    bus.dispatch(new OrderPlaced({ orderId: '1' }));
    bus.dispatch(new OrderPlaced({ orderId: '2' }));

    expect(seen).toEqual(['first', 'second', 'first']);
  });

  it('refuses a subscription to something that is not a class, or without a handler function', () => {
    const bus = new InProcessEventBus();
    expect(() => bus.subscribe('OrderPlaced' as never, () => {})).toThrow(
      new TypeError(
        'subscribe(eventClass, handler): eventClass must be an event class, received "OrderPlaced"',
      ),
    );
    expect(() => bus.subscribe(OrderPlaced, 'log' as never)).toThrow(
      new TypeError('subscribe(eventClass, handler): handler must be a function, received "log"'),
    );
    expect(() => bus.subscribeAll(undefined as never)).toThrow(
      new TypeError('subscribeAll(handler): handler must be a function, received nothing'),
    );
    expect(bus.hasSubscribers(OrderPlaced)).toBe(false);
  });

  it('refuses to dispatch something that is not an event object', () => {
    const bus = new InProcessEventBus();
    const seen: unknown[] = [];
    bus.subscribeAll((event) => seen.push(event));
    for (const [event, received] of [
      [null, 'null'],
      [undefined, 'nothing'],
      ['OrderPlaced', '"OrderPlaced"'],
      [42, '42'],
    ] as const) {
      expect(() => bus.dispatch(event as never)).toThrow(
        new TypeError(
          `dispatch(event): event must be an instance of an event class, received ${received}`,
        ),
      );
    }
    expect(seen).toEqual([]);
  });

  it('keeps separate buses separate', () => {
    const one = new InProcessEventBus();
    const two = new InProcessEventBus();
    const seen: string[] = [];
    one.subscribe(OrderPlaced, () => seen.push('one'));
    two.dispatch(new OrderPlaced({ orderId: 'x' }));
    expect(seen).toEqual([]);
  });
});

describe('defineEvent', () => {
  it('makes frozen events that carry their fields and their own class', () => {
    const event = new OrderPlaced({ orderId: 'o-9' });
    expect(event.orderId).toBe('o-9');
    expect(event).toBeInstanceOf(OrderPlaced);
    expect(event.constructor.name).toBe('OrderPlaced');
    expect(Object.isFrozen(event)).toBe(true);
  });

  it('copies the init object rather than keeping it', () => {
    const init = { orderId: 'o-10' };
    const event = new OrderPlaced(init);
    init.orderId = 'changed';
    expect(event.orderId).toBe('o-10');
  });

  it('says whether a class has subscribers: its own or catch-all ones, until they unsubscribe', () => {
    const bus = new InProcessEventBus();
    expect(bus.hasSubscribers(OrderPlaced)).toBe(false);
    const off = bus.subscribe(OrderPlaced, () => undefined);
    expect(bus.hasSubscribers(OrderPlaced)).toBe(true);
    expect(bus.hasSubscribers(OrderCancelled)).toBe(false);
    expect(bus.hasSubscribers(RushOrderPlaced)).toBe(false);
    off();
    expect(bus.hasSubscribers(OrderPlaced)).toBe(false);
    const offAll = bus.subscribeAll(() => undefined);
    expect(bus.hasSubscribers(OrderCancelled)).toBe(true);
    offAll();
    expect(bus.hasSubscribers(OrderCancelled)).toBe(false);
  });
});

describe('isObserved', () => {
  const quiet = { hasReducers: () => false };

  it('is false only when neither a reducer nor a bus handler would see the event', () => {
    const bus = new InProcessEventBus();
    expect(isObserved({ bus, ...quiet }, OrderPlaced)).toBe(false);
    bus.subscribe(OrderPlaced, () => undefined);
    expect(isObserved({ bus, ...quiet }, OrderPlaced)).toBe(true);
    expect(isObserved({ bus, ...quiet }, OrderCancelled)).toBe(false);
    expect(isObserved({ bus, hasReducers: (c) => c === OrderCancelled }, OrderCancelled)).toBe(
      true,
    );
  });

  it('counts as observed what it cannot tell: a bus without hasSubscribers, no hasReducers', () => {
    const bus = new InProcessEventBus();
    const opaqueBus = {
      subscribe: bus.subscribe.bind(bus),
      subscribeAll: bus.subscribeAll.bind(bus),
      dispatch: bus.dispatch.bind(bus),
    };
    expect(isObserved({ bus: opaqueBus, ...quiet }, OrderPlaced)).toBe(true);
    expect(isObserved({ bus }, OrderPlaced)).toBe(true);
  });
});
