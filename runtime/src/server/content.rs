//! Content blocks a tool's result carries beside (or instead of) its
//! structured output, as MCP's `ContentBlock` says them: text, an image or
//! audio (bytes with a MIME type, base64 on the wire), an embedded resource
//! (text or bytes) and a link to a resource; and the messages made of them
//! (a prompt's, a conversation sent to the client's model).
//!
//! A leaf of the server: it imports nothing of it.

use base64::Engine as _;
use serde::{Deserialize, Serialize};

/// One content block of a tool's result (MCP `ContentBlock`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Content {
    Text {
        text: String,
    },
    Image {
        /// The bytes, base64.
        data: String,
        #[serde(rename = "mimeType")]
        mime_type: String,
    },
    Audio {
        /// The bytes, base64.
        data: String,
        #[serde(rename = "mimeType")]
        mime_type: String,
    },
    Resource {
        resource: EmbeddedResource,
    },
    ResourceLink(Resource),
}

/// A resource's contents in the result itself: text, or bytes (`blob`,
/// base64); exactly one of the two.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct EmbeddedResource {
    pub uri: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub blob: Option<String>,
}

/// A resource: what `resources/list` lists, and (MCP's `resource_link`) a
/// link to one in a tool's result, for the client to read or show.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
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

/// Who speaks a message (of a prompt, of a sampling request).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    User,
    Assistant,
}

/// One message of a filled-in prompt or of a conversation sent to the
/// client's model: text, an image, an embedded resource.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PromptMessage {
    pub role: Role,
    pub content: Content,
}

impl PromptMessage {
    /// A message of the user's.
    pub fn user(content: Content) -> PromptMessage {
        PromptMessage {
            role: Role::User,
            content,
        }
    }

    /// A message of the assistant's.
    pub fn assistant(content: Content) -> PromptMessage {
        PromptMessage {
            role: Role::Assistant,
            content,
        }
    }
}

impl EmbeddedResource {
    /// A resource's contents as text.
    pub fn text(
        uri: impl Into<String>,
        mime_type: Option<&str>,
        text: impl Into<String>,
    ) -> EmbeddedResource {
        EmbeddedResource {
            uri: uri.into(),
            mime_type: mime_type.map(str::to_owned),
            text: Some(text.into()),
            blob: None,
        }
    }

    /// A resource's contents as bytes (base64 on the wire).
    pub fn blob(uri: impl Into<String>, mime_type: Option<&str>, bytes: &[u8]) -> EmbeddedResource {
        EmbeddedResource {
            uri: uri.into(),
            mime_type: mime_type.map(str::to_owned),
            text: None,
            blob: Some(base64(bytes)),
        }
    }
}

impl Content {
    /// A text block.
    pub fn text(text: impl Into<String>) -> Content {
        Content::Text { text: text.into() }
    }

    /// An image: its bytes (a PNG, say) and their MIME type (`image/png`).
    pub fn image(bytes: &[u8], mime_type: impl Into<String>) -> Content {
        Content::Image {
            data: base64(bytes),
            mime_type: mime_type.into(),
        }
    }

    /// A sound: its bytes and their MIME type (`audio/wav`).
    pub fn audio(bytes: &[u8], mime_type: impl Into<String>) -> Content {
        Content::Audio {
            data: base64(bytes),
            mime_type: mime_type.into(),
        }
    }

    /// A resource embedded as text (a file's contents, a report).
    pub fn resource_text(
        uri: impl Into<String>,
        mime_type: Option<&str>,
        text: impl Into<String>,
    ) -> Content {
        Content::Resource {
            resource: EmbeddedResource::text(uri, mime_type, text),
        }
    }

    /// A resource embedded as bytes (base64 on the wire).
    pub fn resource_blob(uri: impl Into<String>, mime_type: Option<&str>, bytes: &[u8]) -> Content {
        Content::Resource {
            resource: EmbeddedResource::blob(uri, mime_type, bytes),
        }
    }

    /// A link to the resource at `uri`, named `name`; the other fields of
    /// [`Resource`] are set on the returned block's link.
    pub fn link(uri: impl Into<String>, name: impl Into<String>) -> Content {
        Content::ResourceLink(Resource::new(uri, name))
    }
}

/// The content blocks of a result a backend sent (its `content` member,
/// none when absent); what cannot be read as blocks, said as an error.
pub(crate) fn content_of(result: &serde_json::Value) -> Result<Vec<Content>, String> {
    match result.get("content") {
        None => Ok(Vec::new()),
        Some(c) => serde_json::from_value(c.clone())
            .map_err(|e| format!("content blocks toolgen cannot read ({e}): {c}")),
    }
}

fn base64(bytes: &[u8]) -> String {
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// Each block as MCP's schema (2025-11-25) spells it.
    #[test]
    fn blocks_are_written_as_mcp_says() {
        let to = |c: &Content| serde_json::to_value(c).unwrap_or_default();
        assert_eq!(
            to(&Content::text("hi")),
            json!({"type": "text", "text": "hi"})
        );
        assert_eq!(
            to(&Content::image(b"\x89PNG", "image/png")),
            json!({"type": "image", "data": "iVBORw==", "mimeType": "image/png"})
        );
        assert_eq!(
            to(&Content::audio(&[1, 2, 3], "audio/wav")),
            json!({"type": "audio", "data": "AQID", "mimeType": "audio/wav"})
        );
        assert_eq!(
            to(&Content::resource_text(
                "file:///a.txt",
                Some("text/plain"),
                "A"
            )),
            json!({"type": "resource", "resource":
                {"uri": "file:///a.txt", "mimeType": "text/plain", "text": "A"}})
        );
        assert_eq!(
            to(&Content::resource_blob("file:///a.bin", None, &[0xff])),
            json!({"type": "resource", "resource": {"uri": "file:///a.bin", "blob": "/w=="}})
        );
        let mut link = Content::link("file:///plot.png", "plot.png");
        if let Content::ResourceLink(l) = &mut link {
            l.mime_type = Some("image/png".into());
            l.size = Some(12);
        }
        assert_eq!(
            to(&link),
            json!({"type": "resource_link", "uri": "file:///plot.png", "name": "plot.png",
                "mimeType": "image/png", "size": 12})
        );
    }
}
