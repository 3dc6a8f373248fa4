//! What a server offers beside its tools: resources a client reads by URI
//! (`resources/list`, `resources/read`) and prompts it fills in
//! (`prompts/list`, `prompts/get`), each with the handler that makes its
//! contents when asked.

use std::collections::BTreeMap;
use std::sync::Arc;

use serde::Serialize;
use serde_json::{Map, Value, json};

use super::content::{EmbeddedResource, PromptMessage};
use super::wire::plain_error;
use crate::error::{ErrorCode, ToolError};

/// A resource the server lists (MCP `Resource`).
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Resource {
    pub uri: String,
    pub name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// Its size in bytes, when known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub size: Option<u64>,
}

impl Resource {
    /// The resource at `uri`, named `name`; set the other fields on it.
    pub fn new(uri: impl Into<String>, name: impl Into<String>) -> Resource {
        Resource {
            uri: uri.into(),
            name: name.into(),
            title: None,
            description: None,
            mime_type: None,
            size: None,
        }
    }
}

/// Makes a resource's contents when a client reads it (given its URI): one
/// or more texts or blobs ([`EmbeddedResource::text`], [`EmbeddedResource::blob`]).
pub type ResourceReader =
    Arc<dyn Fn(&str) -> Result<Vec<EmbeddedResource>, ToolError> + Send + Sync>;

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
        });
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
}

/// Fills in a prompt: its arguments (the required ones present, every value a
/// string) in, its messages out.
pub type PromptHandler =
    Arc<dyn Fn(&BTreeMap<String, String>) -> Result<Vec<PromptMessage>, ToolError> + Send + Sync>;

/// The resources and prompts of a server, by URI and by name.
#[derive(Default)]
pub(crate) struct Offered {
    resources: BTreeMap<String, (Resource, ResourceReader)>,
    prompts: BTreeMap<String, (Prompt, PromptHandler)>,
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
        if !self.resources.is_empty() {
            capabilities["resources"] = json!({});
        }
        if !self.prompts.is_empty() {
            capabilities["prompts"] = json!({});
        }
    }

    /// `resources/list`: every resource, in URI order.
    pub(crate) fn list_resources(&self) -> Value {
        let resources: Vec<&Resource> = self.resources.values().map(|(r, _)| r).collect();
        json!({ "resources": resources })
    }

    /// `resources/read`: the contents of the resource `params.uri` names.
    pub(crate) fn read(&self, params: &Map<String, Value>) -> Result<Value, ToolError> {
        let uri = params.get("uri").and_then(Value::as_str).ok_or_else(|| {
            plain_error(
                ErrorCode::InvalidParams,
                "Invalid params: `uri` must be a string",
            )
        })?;
        let (_, read) = self.resources.get(uri).ok_or_else(|| {
            // MCP's code for an unknown resource is -32002.
            plain_error(
                ErrorCode::InvalidArguments,
                format!("Resource not found: {uri}"),
            )
            .detail("uri", uri)
        })?;
        let contents = read(uri)?;
        Ok(json!({ "contents": contents }))
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
        let name = params
            .get("name")
            .and_then(Value::as_str)
            .ok_or_else(|| invalid("`name` must be a string".to_owned()))?;
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
