/**
 * A bridged tool's argument validator: built on first use, failing closed,
 * and masked for its server's own secrets and for the secret arguments of
 * the call and of the session's calls in flight when the schema was
 * listed (it may quote one).
 */
import { z } from 'zod';
import { messageOf } from '../core/errors.js';
import { type DirectCheck, directCheckOf, withDirectCheck } from '../tools/direct-check.js';
import { declaresSecretArguments, secretArgumentValues } from '../tools/secret-arguments.js';
import { callTextMask } from './in-flight-secrets.js';
import { createInputValidator } from './schema/index.js';
import type { ServerRoute } from './server-route.js';
import type { ServerTextMasker } from './server-text.js';

/**
 * The validator of a bridged tool's arguments, built from the server's
 * schema on the tool's first call: the schema layer's (cached by schema
 * content), with what it says masked for the server's secrets (`listed`:
 * as masked when the schema was listed); or, for a schema that cannot be
 * used, one that refuses every call with the reason.
 */
export function bridgedValidator(
  schema: unknown,
  serverName: string,
  toolName: string,
  route: ServerRoute,
  listed: ServerTextMasker,
): z.ZodType<Record<string, unknown>> {
  let validator: z.ZodType<Record<string, unknown>>;
  try {
    validator = createInputValidator(schema, { serverName, toolName });
  } catch (error) {
    // Fail closed: a schema we cannot honour refuses every call, with the reason.
    const reason = route.redact(listed.redact(messageOf(error)));
    return z.record(z.string(), z.unknown()).superRefine((_value, ctx) => {
      ctx.addIssue({
        code: 'custom',
        message: `the tool's input schema cannot be used: ${reason}`,
      });
    });
  }
  return maskedValidator(validator, schema, listed);
}

/**
 * `validator` (shared by every tool with the same schema), with its
 * messages masked for one server and for the call: they quote the
 * schema's own values (an enum, a pattern, a reference), where a server
 * may have put its secret, and the value they refuse (`received
 * "hunter2"`), which may be a secret argument (`secret-arguments.ts`).
 * An error result reaches events, telemetry and traces.
 */
function maskedValidator(
  validator: z.ZodType<Record<string, unknown>>,
  schema: unknown,
  listed: ServerTextMasker,
): z.ZodType<Record<string, unknown>> {
  const direct = directCheckOf(validator);
  if (direct === undefined) return validator; // every validator the schema layer builds has one
  const declaresSecrets = declaresSecretArguments(schema);
  const check: DirectCheck = (value) => {
    const problems = direct(value);
    if (problems.length === 0) return problems;
    const secrets = secretArgumentValues(value, schema, declaresSecrets);
    // Not the other calls' secrets in flight now: a message quotes the value it
    // refuses, the caller's own, and a guess that came back masked would be confirmed.
    const mask = callTextMask(secrets, listed);
    if (mask === undefined) return problems;
    return problems.map(({ path, message }) => ({ path, message: mask(message) }));
  };
  const masked = z.custom<Record<string, unknown>>().check((payload) => {
    for (const { path, message } of check(payload.value)) {
      payload.issues.push({ code: 'custom', input: payload.value, path: [...path], message });
    }
  });
  return withDirectCheck(masked, check);
}
