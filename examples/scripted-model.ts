/**
 * A model that plays a script, for running an agent with no network and no
 * key: each step sees the results of the previous turn's tool calls, by
 * tool name, and says what to call next or what to answer. It is an
 * ordinary `ModelAdapter`, like the ones for OpenAI or Anthropic.
 */
import type { ModelAdapter, ModelToolCall } from '../src/index.js';

/** The results of the previous turn, by tool name (`ok: false` for an error result). */
export type StepResults = ReadonlyMap<string, { readonly ok: boolean; readonly text: string }>;

/** One reply of the script: tools to call, or the final answer. */
export interface StepReply {
  readonly calls?: readonly { readonly name: string; readonly input: object }[];
  readonly answer?: string;
}

/** The conversation, as the scripted model keeps it. */
export type ScriptedMessage =
  | { readonly role: 'model'; readonly reply: StepReply }
  | { readonly role: 'results'; readonly results: StepResults }
  | { readonly role: 'user'; readonly text: string };

/** An adapter that answers turn n with `steps[n - 1]`, printing each turn with `log`. */
export function scriptedModel(
  steps: readonly ((results: StepResults) => StepReply)[],
  log: (line: string) => void = () => undefined,
): ModelAdapter<ScriptedMessage> {
  return {
    name: 'scripted',
    generate({ messages }) {
      const turn = messages.filter((message) => message.role === 'model').length + 1;
      const last = messages.at(-1);
      const step = steps[turn - 1];
      if (step === undefined) throw new Error(`the script has no step ${turn}`);
      const reply = step(last?.role === 'results' ? last.results : new Map());
      const toolCalls: ModelToolCall[] = (reply.calls ?? []).map((call, index) => ({
        id: `call_${turn}_${index}`,
        name: call.name,
        input: call.input,
      }));
      log(
        toolCalls.length > 0
          ? `[model] turn ${turn}: calls ${toolCalls.map((call) => call.name).join(', ')}`
          : `[model] turn ${turn}: answers`,
      );
      return Promise.resolve({
        messages: [{ role: 'model', reply }],
        text: reply.answer ?? '',
        toolCalls,
      });
    },
    toolResults: (outcomes) => [
      {
        role: 'results',
        results: new Map(
          outcomes.map(({ call, result, text }) => [call.name, { ok: result.success, text }]),
        ),
      },
    ],
    userMessage: (text) => ({ role: 'user', text }),
  };
}
