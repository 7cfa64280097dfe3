import swagger from "@fastify/swagger";
import type { FastifyInstance } from "fastify";
import { ErrorBody } from "../api/schemas.js";
import { withLimits } from "../contract/limits.js";
import { VERSION } from "../lib/version.js";
import { closeSignal } from "./closeSignal.js";
import { checkCountLimits } from "./countLimits.js";
import { createBaseApp } from "./createBaseApp.js";
import type { HttpOptions } from "./HttpOptions.js";
import { registrationLimitFor } from "./RegistrationLimit.js";
import { registerSocketRoute } from "./registerSocketRoute.js";
import { Answer, REST_ROUTES } from "./restRoutes.js";
import { serveExplorer } from "./serveExplorer.js";
import { spendingNonce } from "./spendingNonce.js";

/** The REST app (docs/api.md), with `/openapi.json` and `/ws`. */
export async function buildRestApp(options: HttpOptions): Promise<FastifyInstance> {
  const limits = withLimits(options.limits);
  const app = await createBaseApp(options);
  await app.register(swagger, {
    openapi: {
      info: { title: "contract-hub", version: options.version ?? VERSION },
      components: {
        securitySchemes: {
          hubSignature: {
            type: "apiKey",
            in: "header",
            name: "X-Hub-Signature",
            description: "With X-Hub-Key, X-Hub-Timestamp and X-Hub-Nonce; see docs/api.md",
          },
        },
      },
    },
  });
  // New identities per address, shared with the JSON-RPC port and the WebSockets of these options.
  const registrations = registrationLimitFor(options);
  for (const route of REST_ROUTES) {
    app.route({
      method: route.method,
      url: route.url,
      config: { auth: route.auth, ...(route.nonceInAppend ? { nonceInAppend: true } : {}) },
      ...(route.largeBody ? { bodyLimit: limits.pushBodyBytes } : {}),
      ...(route.method === "POST" ? { preValidation: async (request) => checkCountLimits(request.body, limits) } : {}),
      schema: {
        summary: route.summary,
        ...(route.schema.params ? { params: route.schema.params } : {}),
        ...(route.schema.querystring ? { querystring: route.schema.querystring } : {}),
        ...(route.schema.body ? { body: route.schema.body } : {}),
        ...(route.auth === "required" ? { security: [{ hubSignature: [] }] } : {}),
        response: {
          ...Object.fromEntries((route.alsoAnswers ?? []).map((status) => [status, route.schema.response])),
          [route.status ?? 200]: route.schema.response,
          "4xx": ErrorBody,
          "5xx": ErrorBody,
        },
      },
      handler: async (request, reply) => {
        let signal: AbortSignal | undefined;
        const out = await spendingNonce(options.authenticator, request.caller, async () =>
          route.run({
            hub: options.hub,
            registry: options.registry,
            caller: request.caller,
            params: request.params as Record<string, string>,
            query: (request.query ?? {}) as Record<string, number | string | undefined>,
            body: (request.body ?? {}) as Record<string, unknown>,
            get signal() {
              signal ??= closeSignal(reply.raw);
              return signal;
            },
            admitNewIdentity: () => registrations.take(request.clientAddress),
          }),
        );
        if (out instanceof Answer) {
          if (out.type !== undefined) reply.type(out.type);
          return reply.code(out.status).send(out.body);
        }
        if (out !== null && typeof out === "object" && "pipe" in out) {
          return reply.code(200).type("application/json").send(out);
        }
        return reply.code(route.status ?? 200).send(out);
      },
    });
  }
  app.get("/openapi.json", { config: { auth: "none" }, schema: { hide: true } }, async () => app.swagger());
  registerSocketRoute(app, options);
  serveExplorer(app);
  return app;
}
