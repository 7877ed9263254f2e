import HTTPTypes
import Hummingbird

/// `Strict-Transport-Security` on every response of a server that is reached over https
/// (TLS here, or a proxy's under `--behind-proxy` that says `X-Forwarded-Proto: https`): a
/// browser that saw it never tries plain http for the host again, for a year.
struct StrictTransportSecurity<Context: RequestContext>: RouterMiddleware {
  let tls: Bool
  let behindProxy: Bool

  func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response)
    async throws -> Response
  {
    var response = try await next(request, context)
    let forwarded = HTTPField.Name("X-Forwarded-Proto").flatMap { request.headers[$0] }?.lowercased()
    if tls || (behindProxy && forwarded == "https") {
      response.headers[.strictTransportSecurity] = "max-age=31536000"
    }
    return response
  }
}
