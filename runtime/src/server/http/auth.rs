//! Who may call the HTTP server: bearer tokens on every request.
//!
//! - Static tokens ([`Auth::tokens`], from an environment variable or a
//!   file): compared in constant time; each may carry a tier, so that one
//!   token reaches fewer tools than another.
//! - A validator ([`TokenValidator`]) for the MCP authorization spec's
//!   resource-server role: an OAuth 2.1 access token issued by an
//!   authorization server is checked by code the deployment supplies
//!   (introspection, JWT verification); the server publishes its
//!   protected-resource metadata (RFC 9728) and names it in
//!   `WWW-Authenticate` on every 401.
//!
//! Tokens are never logged, echoed in errors, or kept beyond the request.

use std::sync::Arc;

use hyper::header::{self, HeaderMap, HeaderValue};
use hyper::{Response, StatusCode};
use serde_json::json;

use super::body::{Body, full, header_str};

/// Who is calling, as authentication established it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Caller {
    /// Who it is (a token's subject); never the token itself.
    pub subject: String,
    /// The highest tier it may call (`None`: the server's).
    pub tier: Option<String>,
}

/// Why a request is not authorized.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AuthError {
    /// No `Authorization: Bearer ...` header.
    Missing,
    /// A token that is not valid (expired, unknown, wrong audience): the
    /// reason, which must not contain the token.
    Invalid(String),
}

/// Checks access tokens for the OAuth 2.1 resource-server role.
pub trait TokenValidator: Send + Sync {
    fn validate(&self, token: &str) -> Result<Caller, AuthError>;
}

/// The protected-resource metadata document (RFC 9728) of the MCP endpoint.
#[derive(Clone, Debug, Default)]
pub struct ProtectedResource {
    /// The endpoint's canonical URL (`https://example.com/mcp`); by
    /// default made from the request's `Host` and the endpoint path.
    pub resource: Option<String>,
    /// Authorization servers that issue tokens for it.
    pub authorization_servers: Vec<String>,
    pub scopes_supported: Vec<String>,
}

/// How the HTTP server authenticates callers.
#[derive(Clone)]
pub enum Auth {
    /// Static bearer tokens, each with the caller it stands for.
    Tokens(Arc<Vec<(String, Caller)>>),
    /// Tokens checked by a validator; the metadata tells clients where to get one.
    Validator(Arc<dyn TokenValidator>, ProtectedResource),
}

impl std::fmt::Debug for Auth {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Auth::Tokens(t) => write!(f, "Auth::Tokens({} tokens)", t.len()),
            Auth::Validator(_, m) => write!(f, "Auth::Validator({m:?})"),
        }
    }
}

fn bad(message: String) -> std::io::Error {
    std::io::Error::new(std::io::ErrorKind::InvalidInput, message)
}

impl Auth {
    /// One static token, for the server's own tier.
    pub fn token(secret: impl Into<String>) -> Auth {
        Auth::Tokens(Arc::new(vec![(
            secret.into(),
            Caller {
                subject: "token-1".to_owned(),
                tier: None,
            },
        )]))
    }

    /// The token in environment variable `var`.
    pub fn token_from_env(var: &str) -> std::io::Result<Auth> {
        let secret = std::env::var(var).map_err(|_| {
            bad(format!(
                "environment variable {var} holds no token: set it to a long random secret"
            ))
        })?;
        let secret = secret.trim();
        check_strength(secret, &format!("the token in {var}"))?;
        Ok(Auth::token(secret))
    }

    /// Tokens from a file: one per line, optionally followed by the tier it
    /// may call (`SECRET tier1`); blank lines and `#` comments are skipped.
    pub fn token_from_file(path: &std::path::Path) -> std::io::Result<Auth> {
        let text = std::fs::read_to_string(path).map_err(|e| {
            std::io::Error::new(e.kind(), format!("cannot read {}: {e}", path.display()))
        })?;
        let mut tokens = Vec::new();
        for (n, line) in text.lines().enumerate() {
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let mut parts = line.split_whitespace();
            let secret = parts.next().unwrap_or_default();
            check_strength(secret, &format!("{}:{}", path.display(), n + 1))?;
            let tier = parts.next().map(str::to_owned);
            if parts.next().is_some() {
                return Err(bad(format!(
                    "{}:{}: a line holds a token and at most a tier, separated by a space",
                    path.display(),
                    n + 1
                )));
            }
            tokens.push((
                secret.to_owned(),
                Caller {
                    subject: format!("token-{}", tokens.len() + 1),
                    tier,
                },
            ));
        }
        if tokens.is_empty() {
            return Err(bad(format!("{} holds no token", path.display())));
        }
        Ok(Auth::Tokens(Arc::new(tokens)))
    }

    /// Checks the request's bearer token.
    pub(super) fn check(&self, headers: &HeaderMap) -> Result<Caller, AuthError> {
        let token = header_str(headers, "authorization")
            .and_then(|h| {
                let (scheme, token) = h.split_once(' ')?;
                scheme.eq_ignore_ascii_case("bearer").then(|| token.trim())
            })
            .filter(|t| !t.is_empty())
            .ok_or(AuthError::Missing)?;
        match self {
            Auth::Tokens(tokens) => tokens
                .iter()
                .find(|(secret, _)| same(secret.as_bytes(), token.as_bytes()))
                .map(|(_, c)| c.clone())
                .ok_or_else(|| AuthError::Invalid("the token is not valid".to_owned())),
            Auth::Validator(v, _) => v.validate(token),
        }
    }
}

/// At least 16 characters: a short token can be guessed.
fn check_strength(secret: &str, what: &str) -> std::io::Result<()> {
    if secret.chars().count() < 16 {
        return Err(bad(format!(
            "{what} is shorter than 16 characters; use a long random secret (for example `openssl rand -hex 32`)"
        )));
    }
    Ok(())
}

/// Equal bytes, compared in time that depends only on the lengths.
fn same(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

const METADATA: &str = "/.well-known/oauth-protected-resource";

pub(super) fn is_metadata_path(path: &str, endpoint: &str) -> bool {
    path == METADATA || path.strip_prefix(METADATA) == Some(endpoint)
}

fn base_url(headers: &HeaderMap, metadata: &ProtectedResource, endpoint: &str) -> String {
    match &metadata.resource {
        Some(r) => r.strip_suffix(endpoint).unwrap_or(r).to_owned(),
        None => format!(
            "http://{}",
            header_str(headers, "host").unwrap_or("localhost")
        ),
    }
}

/// The metadata document (404 for static tokens, which no authorization
/// server issues).
pub(super) fn metadata_response(
    auth: &Auth,
    headers: &HeaderMap,
    endpoint: &str,
) -> Response<Body> {
    let Auth::Validator(_, m) = auth else {
        let mut r = Response::new(full(Vec::new()));
        *r.status_mut() = StatusCode::NOT_FOUND;
        return r;
    };
    let base = base_url(headers, m, endpoint);
    let doc = json!({
        "resource": m.resource.clone().unwrap_or_else(|| format!("{base}{endpoint}")),
        "authorization_servers": m.authorization_servers,
        "scopes_supported": m.scopes_supported,
        "bearer_methods_supported": ["header"],
    });
    let mut r = Response::new(full(doc.to_string().into_bytes()));
    r.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    r
}

/// 401 with `WWW-Authenticate` (naming the metadata document when there is one).
pub(super) fn unauthorized(
    auth: &Auth,
    e: &AuthError,
    headers: &HeaderMap,
    endpoint: &str,
) -> Response<Body> {
    let mut challenge = match auth {
        Auth::Tokens(_) => "Bearer realm=\"mcp\"".to_owned(),
        Auth::Validator(_, m) => format!(
            "Bearer resource_metadata=\"{}{METADATA}{endpoint}\"",
            base_url(headers, m, endpoint)
        ),
    };
    let message = match e {
        AuthError::Missing => {
            "Unauthorized: send `Authorization: Bearer TOKEN` with every request".to_owned()
        }
        AuthError::Invalid(why) => {
            challenge.push_str(", error=\"invalid_token\"");
            format!("Unauthorized: {why}")
        }
    };
    let body = json!({"jsonrpc": "2.0", "id": null, "error": {"code": -32001, "message": message}});
    let mut r = Response::new(full(body.to_string().into_bytes()));
    *r.status_mut() = StatusCode::UNAUTHORIZED;
    r.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    if let Ok(v) = HeaderValue::from_str(&challenge) {
        r.headers_mut().insert(header::WWW_AUTHENTICATE, v);
    }
    r
}
