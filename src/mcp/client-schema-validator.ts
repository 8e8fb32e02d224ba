/**
 * The JSON Schema validator handed to the SDK's `Client`.
 *
 * The client's default is an Ajv instance, built in its constructor, so on
 * every connect and reconnect (≈ 130 µs and ≈ 21 KB kept per client,
 * measured here). The client uses it for one thing: checking the output of
 * tools it listed itself with `listTools()`. This library lists tools with
 * its own request (`requests.ts`) and checks outputs itself
 * (`output-check.ts`), so that instance was never used. This one is built
 * on first use, should an SDK version use it for more; it interprets
 * schemas (@cfworker/json-schema, as the library's own checks do), so a
 * server's schema is never turned into code.
 */
import { CfWorkerJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/cfworker';
import type {
  JsonSchemaType,
  JsonSchemaValidator,
  jsonSchemaValidator,
} from '@modelcontextprotocol/sdk/validation/types.js';

/** A validator for one client, whose engine is made when a schema is first checked. */
export function clientSchemaValidator(
  create: () => jsonSchemaValidator = () => new CfWorkerJsonSchemaValidator(),
): jsonSchemaValidator {
  let engine: jsonSchemaValidator | undefined;
  return {
    getValidator<T>(schema: JsonSchemaType): JsonSchemaValidator<T> {
      engine ??= create();
      return engine.getValidator<T>(schema);
    },
  };
}
