import { z } from 'zod';
const s = z.fromJSONSchema({ type: 'array', prefixItems: [{ type: 'string' }, { type: 'number' }], minItems: 2, items: false } as never);
console.log(JSON.stringify(s.safeParse(['a'], { jitless: true, reportInput: true }).error?.issues));
