import { createInputValidator, inputValidatorInfo, schemaCacheStats } from './src/mcp/schema/index.ts';
const ids = { serverName: 's', toolName: 't' };
const show = (name: string, schema: unknown, values: unknown[]) => {
  try {
    const v = createInputValidator(schema, ids);
    for (const value of values) {
      const r = v.safeParse(value);
      console.log(name, JSON.stringify(value), r.success ? 'OK' : r.error.issues.map((i) => `[${i.path.join('.')}] ${i.message}`).join(' | '));
    }
    console.log('   ->', JSON.stringify(inputValidatorInfo(v)));
  } catch (e) { console.log(name, 'THROW', (e as Error).message); }
};
show('basic', { type: 'object', properties: { a: { type: 'integer', minimum: 0 }, b: { type: 'string', enum: ['x', 'y'] } }, required: ['a'] }, [{ a: 1 }, { a: -1, b: 'z' }, {}, { a: '5', extra: 1 }, []]);
show('nullable', { type: 'object', properties: { n: { type: ['string', 'null'] }, m: { anyOf: [{ type: 'string' }, { type: 'null' }] } } }, [{ n: null, m: null }, { n: 3, m: 4 }]);
show('strict', { type: 'object', properties: { a: {} }, additionalProperties: false }, [{ a: 1 }, { a: 1, b: 2, c: 3 }]);
show('ifthen', { type: 'object', properties: { kind: { type: 'string' }, n: {} }, if: { properties: { kind: { const: 'num' } } }, then: { properties: { n: { type: 'number' } }, required: ['n'] } }, [{ kind: 'num', n: 1 }, { kind: 'num', n: 'x' }, { kind: 'num' }, { kind: 'str' }]);
show('not', { type: 'object', properties: { a: { not: { type: 'string' } } } }, [{ a: 1 }, { a: 'x' }]);
show('depreq', { type: 'object', dependentRequired: { a: ['b', 'c'] } }, [{ a: 1, b: 1, c: 1 }, { a: 1 }]);
show('rec', { type: 'object', properties: { tree: { $ref: '#/$defs/node' } }, $defs: { node: { type: 'object', properties: { v: { type: 'number' }, kids: { type: 'array', items: { $ref: '#/$defs/node' } } }, required: ['v'] } } }, [{ tree: { v: 1, kids: [{ v: 2, kids: [] }] } }, { tree: { v: 1, kids: [{ kids: [{ v: 'x' }] }] } }]);
show('remote', { type: 'object', properties: { a: { $ref: 'https://evil.example/x.json' } } }, [{}]);
show('remote2', { type: 'object', properties: { a: { $ref: 'other.json#/x' } } }, [{}]);
show('dangling', { type: 'object', properties: { a: { $ref: '#/$defs/nope' } } }, [{}]);
show('arr', { type: 'array' }, [{}]);
show('maxLen', { type: 'object', properties: { s: { type: 'string', maxLength: 3, pattern: '^[a-z]+$' } } }, [{ s: 'abc' }, { s: 'abcd' }, { s: 'AB' }]);
show('oneOf', { type: 'object', oneOf: [{ required: ['a'] }, { required: ['b'] }] }, [{ a: 1 }, { a: 1, b: 2 }, {}]);
show('uniq', { type: 'object', properties: { l: { type: 'array', uniqueItems: true, minItems: 2 } } }, [{ l: [1, 2] }, { l: [1, 1] }, { l: [1] }]);
show('uniq-fb', { type: 'object', properties: { l: { type: 'array', uniqueItems: true, maxItems: 2, contains: { type: 'number' } } } }, [{ l: [1, 2] }, { l: [1, 1, 3] }, { l: ['a'] }]);
show('format', { type: 'object', properties: { e: { type: 'string', format: 'email' }, u: { type: 'string', format: 'uri' } } }, [{ e: 'not an email', u: '/relative' }]);
show('default', { type: 'object', properties: { a: { type: 'string', default: 'x' } }, required: ['a'] }, [{}]);
show('tuple', { type: 'object', properties: { t: { type: 'array', prefixItems: [{ type: 'string' }, { type: 'number' }], minItems: 2, items: false } } }, [{ t: ['a', 1] }, { t: ['a'] }, { t: ['a', 1, 2] }]);
show('propnames', { type: 'object', propertyNames: { pattern: '^[a-z]+$' } }, [{ abc: 1 }, { Abc: 1 }]);
show('addl schema fb', { type: 'object', properties: { a: { type: 'string', maxLength: 2 } }, additionalProperties: { type: 'number' } }, [{ a: 'x', b: 1 }, { a: 'x', b: 'y' }]);
show('addl false fb', { type: 'object', properties: { a: { type: 'string', maxLength: 2 } }, additionalProperties: false }, [{ a: 'x', b: 1 }]);
show('enum fb', { type: 'object', properties: { a: { enum: [{ x: 1 }, 'y'] } } }, [{ a: { x: 1 } }, { a: 'z' }]);
show('integer big', { type: 'object', properties: { a: { type: 'integer' } } }, [{ a: 2 ** 60 }, { a: 1.5 }]);
show('dynref', { $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'object', $dynamicAnchor: 'node', properties: { child: { $dynamicRef: '#node' }, v: { type: 'string' } } }, [{ child: { v: 'a' } }, { child: { v: 1 } }]);
show('draft7 defs', { $schema: 'http://json-schema.org/draft-07/schema#', type: 'object', properties: { a: { $ref: '#/definitions/x' } }, definitions: { x: { type: 'string' } } }, [{ a: 'x' }, { a: 1 }]);
show('deep ref', { type: 'object', $defs: { a: { type: 'object', properties: { b: { type: 'string' } } } }, properties: { x: { $ref: '#/$defs/a/properties/b' } } }, [{ x: 'ok' }, { x: 1 }]);
show('anchor', { type: 'object', $defs: { a: { $anchor: 'thing', type: 'string' } }, properties: { x: { $ref: '#thing' } } }, [{ x: 'ok' }, { x: 1 }]);
show('toString', { type: 'object', properties: { toString: { type: 'string' } } }, [{}, { toString: 1 }]);
show('minItems no items', { type: 'object', properties: { l: { type: 'array', minItems: 2 } } }, [{ l: [1] }]);
console.log(schemaCacheStats());
