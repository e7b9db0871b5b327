import { clip } from "../echo-limit";
import { checkResponsesBody, describeRoutes, matchRoute, type RunPolicy } from "../request-policy";
import { checkAnthropicBody, describeAnthropicRoutes, matchAnthropicRoute } from "./anthropic-policy";
import { isRefusal, type PolicyRefusal } from "./body-policy";
import { apiOfPath, type GatewayRoute } from "./gateway-api";
import { checkGeminiBody, describeGeminiRoutes, matchGeminiRoute } from "./gemini-policy";

/** Every route the gateway forwards, for messages: "POST /v1/responses, …, POST /v1beta/models/<model>:…". */
export function describeAllRoutes(): string {
  return `${describeRoutes()}, ${describeAnthropicRoutes()}, ${describeGeminiRoutes()}`;
}

/**
 * The route of a request by its method and path, in the API the path belongs to, or a refusal: 404 for
 * a path no API forwards, 405 for a method an API does not forward on its path.
 */
export function matchGatewayRoute(options: { method: string; pathname: string }): GatewayRoute | PolicyRefusal {
  const { method, pathname } = options;
  const api = apiOfPath(pathname);
  if (api === "anthropic") return matchAnthropicRoute({ method, pathname });
  if (api === "gemini") return matchGeminiRoute({ method, pathname });
  if (!pathname.startsWith("/v1/"))
    return {
      status: 404,
      type: "not_found",
      message: `The model gateway forwards only ${describeAllRoutes()}, not ${clip(pathname)}.`,
    };
  const subPath = pathname.slice("/v1".length);
  const route = matchRoute({ method, subPath });
  if (isRefusal(route)) return route;
  return {
    api: "responses",
    path: subPath,
    body: route.body === "responses" ? "checked" : "none",
    metered: route.body === "responses",
  };
}

/** The body to send upstream once the run's policy approved it (empty for a route without one), or a refusal. */
export function checkRouteBody(options: {
  route: GatewayRoute;
  body: Buffer;
  policy: RunPolicy;
}): Buffer | PolicyRefusal {
  const { route, body, policy } = options;
  if (route.body === "none") return Buffer.alloc(0);
  if (route.api === "anthropic") return checkAnthropicBody({ body, policy });
  if (route.api === "gemini") return checkGeminiBody({ body, policy, model: route.model ?? "" });
  return checkResponsesBody({ body, policy });
}
