//! What a server offers beside its tools: resources a client reads by URI
//! (`resources/list`, `resources/read`), resource templates whose URIs have
//! variables (`resources/templates/list`; RFC 6570's simple `{var}`, within
//! one path segment), prompts it fills in (`prompts/list`, `prompts/get`),
//! each with the handler that makes its contents when asked, and the
//! values a client may complete a prompt's argument or a template's
//! variable with (`completion/complete`).

use std::collections::BTreeMap;
use std::sync::Arc;

use serde::Serialize;
use serde_json::{Map, Value, json};

use super::content::{EmbeddedResource, PromptMessage, Resource};
use super::wire::{plain_error, string_param};
use crate::error::{ErrorCode, ToolError};

/// Makes a resource's contents when a client reads it (given its URI): one
/// or more texts or blobs ([`EmbeddedResource::text`], [`EmbeddedResource::blob`]).
pub type ResourceReader =
    Arc<dyn Fn(&str) -> Result<Vec<EmbeddedResource>, ToolError> + Send + Sync>;

/// A resource template the server lists (MCP `ResourceTemplate`): URIs with
/// variables, `file:///logs/{day}.txt`.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ResourceTemplate {
    pub uri_template: String,
    pub name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// Values each variable may be completed with (`completion/complete`).
    #[serde(skip)]
    pub completions: BTreeMap<String, Vec<String>>,
}

impl ResourceTemplate {
    /// The template `uri_template`, named `name`; set the other fields on it.
    pub fn new(uri_template: impl Into<String>, name: impl Into<String>) -> ResourceTemplate {
        ResourceTemplate {
            uri_template: uri_template.into(),
            name: name.into(),
            title: None,
            description: None,
            mime_type: None,
            completions: BTreeMap::new(),
        }
    }
}

/// Makes the contents of a URI a template matched: the URI and the values
/// of the template's variables in.
pub type TemplateReader = Arc<
    dyn Fn(&str, &BTreeMap<String, String>) -> Result<Vec<EmbeddedResource>, ToolError>
        + Send
        + Sync,
>;

/// The variables' values of `uri` read by `template` (`{name}` matching one
/// or more characters of one path segment); `None` when it does not match.
fn matched(template: &str, uri: &str) -> Option<BTreeMap<String, String>> {
    let mut vars = BTreeMap::new();
    let (mut t, mut u) = (template, uri);
    while !t.is_empty() {
        match t.find('{') {
            Some(0) => {
                let close = t.find('}')?;
                let name = &t[1..close];
                t = &t[close + 1..];
                // Up to the next literal (or the end), within one segment.
                let literal = &t[..t.find('{').unwrap_or(t.len())];
                let end = if literal.is_empty() {
                    u.len()
                } else {
                    u.find(literal)?
                };
                let value = &u[..end];
                if value.is_empty() || value.contains('/') {
                    return None;
                }
                vars.insert(name.to_owned(), value.to_owned());
                u = &u[end..];
            }
            at => {
                let literal = &t[..at.unwrap_or(t.len())];
                u = u.strip_prefix(literal)?;
                t = &t[literal.len()..];
            }
        }
    }
    u.is_empty().then_some(vars)
}

/// A prompt the server lists (MCP `Prompt`): a message template a client
/// fills in with its arguments.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Prompt {
    pub name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub arguments: Vec<PromptArgument>,
}

impl Prompt {
    /// The prompt `name`, without arguments; set the other fields on it.
    pub fn new(name: impl Into<String>) -> Prompt {
        Prompt {
            name: name.into(),
            title: None,
            description: None,
            arguments: Vec::new(),
        }
    }

    /// The prompt with one more argument.
    pub fn argument(mut self, name: &str, description: &str, required: bool) -> Prompt {
        self.arguments.push(PromptArgument {
            name: name.to_owned(),
            description: Some(description.to_owned()).filter(|d| !d.is_empty()),
            required,
            completions: Vec::new(),
        });
        self
    }

    /// The prompt with `values` to complete its argument `name` with
    /// (`completion/complete`); an argument it does not have is left alone.
    pub fn completions(mut self, name: &str, values: &[&str]) -> Prompt {
        if let Some(a) = self.arguments.iter_mut().find(|a| a.name == name) {
            a.completions = values.iter().map(|v| (*v).to_owned()).collect();
        }
        self
    }
}

/// One argument of a [`Prompt`].
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PromptArgument {
    pub name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    pub required: bool,
    /// Values it may be completed with (`completion/complete`).
    #[serde(skip)]
    pub completions: Vec<String>,
}

/// Fills in a prompt: its arguments (the required ones present, every value a
/// string) in, its messages out.
pub type PromptHandler =
    Arc<dyn Fn(&BTreeMap<String, String>) -> Result<Vec<PromptMessage>, ToolError> + Send + Sync>;

/// The resources and prompts of a server, by URI and by name.
#[derive(Default)]
pub(crate) struct Offered {
    resources: BTreeMap<String, (Resource, ResourceReader)>,
    templates: Vec<(ResourceTemplate, TemplateReader)>,
    prompts: BTreeMap<String, (Prompt, PromptHandler)>,
}

/// What reads a URI: a resource's reader, or a template's with the URI's
/// variables.
enum Source<'o> {
    Resource(&'o ResourceReader),
    Template(&'o TemplateReader, BTreeMap<String, String>),
}

impl Offered {
    pub(crate) fn add_resource(
        &mut self,
        resource: Resource,
        read: ResourceReader,
    ) -> Result<(), String> {
        if self.resources.contains_key(&resource.uri) {
            return Err(format!(
                "a resource with URI `{}` is already registered",
                resource.uri
            ));
        }
        self.resources
            .insert(resource.uri.clone(), (resource, read));
        Ok(())
    }

    pub(crate) fn add_template(
        &mut self,
        template: ResourceTemplate,
        read: TemplateReader,
    ) -> Result<(), String> {
        if (self.templates.iter()).any(|(t, _)| t.uri_template == template.uri_template) {
            return Err(format!(
                "a resource template `{}` is already registered",
                template.uri_template
            ));
        }
        self.templates.push((template, read));
        Ok(())
    }

    pub(crate) fn add_prompt(&mut self, prompt: Prompt, fill: PromptHandler) -> Result<(), String> {
        if self.prompts.contains_key(&prompt.name) {
            return Err(format!(
                "a prompt named `{}` is already registered",
                prompt.name
            ));
        }
        self.prompts.insert(prompt.name.clone(), (prompt, fill));
        Ok(())
    }

    /// The capabilities they add to `initialize`'s (none of a kind the server has none of).
    pub(crate) fn capabilities(&self, capabilities: &mut Value) {
        if !self.resources.is_empty() || !self.templates.is_empty() {
            capabilities["resources"] = json!({"subscribe": true});
        }
        if !self.prompts.is_empty() {
            capabilities["prompts"] = json!({});
        }
        if !self.prompts.is_empty() || !self.templates.is_empty() {
            capabilities["completions"] = json!({});
        }
    }

    /// `resources/list`: every resource, in URI order.
    pub(crate) fn list_resources(&self) -> Value {
        let resources: Vec<&Resource> = self.resources.values().map(|(r, _)| r).collect();
        json!({ "resources": resources })
    }

    /// `resources/read`: the contents of the resource `params.uri` names.
    pub(crate) fn read(&self, params: &Map<String, Value>) -> Result<Value, ToolError> {
        let (uri, source) = self.located(params)?;
        let contents = match source {
            Source::Resource(read) => read(uri)?,
            Source::Template(read, vars) => read(uri, &vars)?,
        };
        Ok(json!({ "contents": contents }))
    }

    /// The URI `resources/subscribe` and `resources/unsubscribe` name, when
    /// the server offers it (a resource, or a URI of a template's).
    pub(crate) fn subscribed(&self, params: &Map<String, Value>) -> Result<String, ToolError> {
        self.located(params).map(|(uri, _)| uri.to_owned())
    }

    /// The URI `params.uri` names and what reads it: a resource by that URI,
    /// else the first template that matches it (-32002 when none).
    fn located<'p>(
        &self,
        params: &'p Map<String, Value>,
    ) -> Result<(&'p str, Source<'_>), ToolError> {
        let uri = string_param(params, "uri")?;
        if let Some((_, read)) = self.resources.get(uri) {
            return Ok((uri, Source::Resource(read)));
        }
        let template = (self.templates.iter())
            .find_map(|(t, read)| matched(&t.uri_template, uri).map(|vars| (read, vars)));
        match template {
            Some((read, vars)) => Ok((uri, Source::Template(read, vars))),
            None => Err(plain_error(
                ErrorCode::InvalidArguments, // MCP's code for an unknown resource: -32002
                format!("Resource not found: {uri}"),
            )
            .detail("uri", uri)),
        }
    }

    /// `resources/templates/list`: every template, in the order registered.
    pub(crate) fn list_templates(&self) -> Value {
        let templates: Vec<&ResourceTemplate> = self.templates.iter().map(|(t, _)| t).collect();
        json!({ "resourceTemplates": templates })
    }

    /// `completion/complete`: the values of a prompt's argument or a
    /// template's variable that start with what the client typed (at most
    /// 100, MCP's limit, with the total).
    pub(crate) fn complete(&self, params: &Map<String, Value>) -> Result<Value, ToolError> {
        let invalid =
            |m: &str| plain_error(ErrorCode::InvalidParams, format!("Invalid params: {m}"));
        let reference = params
            .get("ref")
            .ok_or_else(|| invalid("`ref` is missing"))?;
        let argument = params
            .get("argument")
            .ok_or_else(|| invalid("`argument` is missing"))?;
        let name = argument.get("name").and_then(Value::as_str).unwrap_or("");
        let typed = argument.get("value").and_then(Value::as_str).unwrap_or("");
        let values: &[String] = match reference.get("type").and_then(Value::as_str) {
            Some("ref/prompt") => {
                let prompt = reference.get("name").and_then(Value::as_str).unwrap_or("");
                let (p, _) = (self.prompts.get(prompt))
                    .ok_or_else(|| invalid(&format!("no prompt named `{prompt}`")))?;
                (p.arguments.iter())
                    .find(|a| a.name == name)
                    .map_or(&[], |a| a.completions.as_slice())
            }
            Some("ref/resource") => {
                let uri = reference.get("uri").and_then(Value::as_str).unwrap_or("");
                let (t, _) = (self.templates.iter())
                    .find(|(t, _)| t.uri_template == uri)
                    .ok_or_else(|| invalid(&format!("no resource template `{uri}`")))?;
                t.completions.get(name).map_or(&[], Vec::as_slice)
            }
            _ => return Err(invalid("`ref.type` must be ref/prompt or ref/resource")),
        };
        let fitting: Vec<&String> = values.iter().filter(|v| v.starts_with(typed)).collect();
        let shown = &fitting[..fitting.len().min(100)];
        Ok(json!({"completion": {
            "values": shown,
            "total": fitting.len(),
            "hasMore": fitting.len() > shown.len(),
        }}))
    }

    /// `prompts/list`: every prompt, in name order.
    pub(crate) fn list_prompts(&self) -> Value {
        let prompts: Vec<&Prompt> = self.prompts.values().map(|(p, _)| p).collect();
        json!({ "prompts": prompts })
    }

    /// `prompts/get`: the prompt `params.name` filled in with `params.arguments`.
    pub(crate) fn get_prompt(&self, params: &Map<String, Value>) -> Result<Value, ToolError> {
        let invalid =
            |m: String| plain_error(ErrorCode::InvalidParams, format!("Invalid params: {m}"));
        let name = string_param(params, "name")?;
        let (prompt, fill) = self
            .prompts
            .get(name)
            .ok_or_else(|| invalid(format!("no prompt named `{name}`")))?;
        let mut arguments = BTreeMap::new();
        match params.get("arguments") {
            None | Some(Value::Null) => {}
            Some(Value::Object(given)) => {
                for (k, v) in given {
                    let Value::String(v) = v else {
                        return Err(invalid(format!("argument `{k}` must be a string")));
                    };
                    arguments.insert(k.clone(), v.clone());
                }
            }
            Some(_) => return Err(invalid("`arguments` must be an object".to_owned())),
        }
        let missing: Vec<&str> = (prompt.arguments.iter())
            .filter(|a| a.required && !arguments.contains_key(&a.name))
            .map(|a| a.name.as_str())
            .collect();
        if !missing.is_empty() {
            return Err(invalid(format!(
                "prompt `{name}` needs the argument(s) {}",
                missing.join(", ")
            )));
        }
        let messages = fill(&arguments)?;
        let mut r = json!({ "messages": messages });
        if let Some(d) = &prompt.description {
            r["description"] = json!(d);
        }
        Ok(r)
    }
}

#[cfg(test)]
mod tests {
    use super::matched;

    #[test]
    fn templates_match_one_segment_per_variable() {
        let vars = |t: &str, u: &str| matched(t, u).map(|v| v.into_iter().collect::<Vec<_>>());
        let one = |k: &str, v: &str| Some(vec![(k.to_owned(), v.to_owned())]);
        assert_eq!(
            vars("test://template/{id}/data", "test://template/123/data"),
            one("id", "123")
        );
        assert_eq!(
            vars("file:///logs/{day}", "file:///logs/mon"),
            one("day", "mon")
        );
        assert_eq!(
            vars("test://template/{id}/data", "test://template/1/2/data"),
            None
        );
        assert_eq!(
            vars("test://template/{id}/data", "test://template//data"),
            None
        );
        assert_eq!(
            vars("test://template/{id}/data", "test://template/1/datax"),
            None
        );
        assert_eq!(vars("a/{x}-{y}", "a/1-2").map(|v| v.len()), Some(2));
        assert_eq!(vars("a/{x", "a/1"), None);
    }
}
