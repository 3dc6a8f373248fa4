//! A client's variant of the tools' listing (`catalog/SET/clients/CLIENT.json`,
//! written by toolgen for a tool set's `clients`): what that client takes
//! (names it allows, schemas it reads), listed to it instead of the tools'
//! own entries; and how its calls map back to the tools as their specs wrote
//! them: a variant's name to the tool's (`_meta.toolgen.variantOf`), and a
//! `null` where the variant made an optional property nullable back to an
//! absent one (`_meta.toolgen.nullMeansAbsent`), before validation. Handlers
//! never see the difference.

use std::collections::{BTreeMap, HashMap};

use serde_json::Value;

/// One client's variant of a server's listing.
#[derive(Debug, Default)]
pub(crate) struct Variant {
    /// Each entry as one line of JSON, by the name the client calls it.
    pub(crate) listing: BTreeMap<String, String>,
    /// The calls that need mapping back, by the name the client calls.
    calls: HashMap<String, Mapping>,
}

/// How a call of a variant's tool maps back.
#[derive(Debug)]
struct Mapping {
    /// The tool's own name.
    tool: String,
    /// Where a `null` means "absent": paths of property names, `*` for
    /// every item of an array.
    absent: Vec<Vec<String>>,
}

impl Variant {
    /// Reads a client's variant catalog (`{"client": .., "tools": [..]}`).
    pub(crate) fn parse(text: &str) -> Result<(String, Variant), String> {
        let v: Value =
            serde_json::from_str(text).map_err(|e| format!("a client variant is not JSON: {e}"))?;
        let client = v["client"]
            .as_str()
            .ok_or("a client variant names no `client`")?
            .to_owned();
        let mut variant = Variant::default();
        for entry in v["tools"].as_array().into_iter().flatten() {
            let name = entry["name"]
                .as_str()
                .ok_or_else(|| format!("a tool of the {client} variant has no `name`"))?;
            let meta = &entry["_meta"]["toolgen"];
            let tool = meta["variantOf"].as_str().unwrap_or(name).to_owned();
            let absent: Vec<Vec<String>> = meta["nullMeansAbsent"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(Value::as_str)
                .map(path)
                .collect();
            if tool != name || !absent.is_empty() {
                variant
                    .calls
                    .insert(name.to_owned(), Mapping { tool, absent });
            }
            variant.listing.insert(name.to_owned(), entry.to_string());
        }
        Ok((client, variant))
    }

    /// Adds another tool set's entries of the same client.
    pub(crate) fn merge(&mut self, other: Variant) {
        self.listing.extend(other.listing);
        self.calls.extend(other.calls);
    }

    /// The tool a call of `name` is for, its arguments mapped back.
    pub(crate) fn map_call(&self, name: &str, arguments: &mut Value) -> Option<String> {
        let m = self.calls.get(name)?;
        for p in &m.absent {
            drop_nulls(arguments, p);
        }
        Some(m.tool.clone())
    }
}

/// A path as written (`/a/*/b`, pointer-escaped).
fn path(text: &str) -> Vec<String> {
    text.split('/')
        .skip(1)
        .map(|t| t.replace("~1", "/").replace("~0", "~"))
        .collect()
}

/// Removes the member at `path` of `v` where it is `null`.
fn drop_nulls(v: &mut Value, path: &[String]) {
    let Some((first, rest)) = path.split_first() else {
        return;
    };
    match (v, first.as_str()) {
        (Value::Array(items), "*") => items.iter_mut().for_each(|i| drop_nulls(i, rest)),
        (Value::Object(m), key) if rest.is_empty() && m.get(key) == Some(&Value::Null) => {
            m.remove(key);
        }
        (Value::Object(_), _) if rest.is_empty() => {}
        (Value::Object(m), key) => {
            if let Some(child) = m.get_mut(key) {
                drop_nulls(child, rest);
            }
        }
        _ => {}
    }
}

/// Which registered client variant a client named `name` (its `clientInfo`)
/// gets: matched by what its name says, case aside.
pub(crate) fn client_for(name: &str, registered: &[&str]) -> Option<String> {
    let name = name.to_ascii_lowercase();
    const BY_NAME: &[(&str, &[&str])] = &[
        (
            "claude-code",
            &["claude-code", "claude-ai", "claude desktop"],
        ),
        ("gemini", &["gemini"]),
        ("vscode", &["visual studio code", "vscode"]),
        ("cursor", &["cursor"]),
        ("openai", &["openai", "codex"]),
        ("openai-strict", &["openai", "codex"]),
    ];
    BY_NAME
        .iter()
        .filter(|(_, says)| says.iter().any(|s| name.contains(s)))
        .map(|(client, _)| *client)
        .find(|c| registered.contains(c))
        .map(str::to_owned)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_call_maps_back_to_the_tool_and_its_nulls_to_absence() {
        let catalog = json!({"client": "openai-strict", "tools": [
            {"name": "scene_find", "inputSchema": {}, "_meta": {"toolgen": {
                "variantOf": "scene.find", "nullMeansAbsent": ["/tag", "/filters/*/since", "/a~1b"]}}},
            {"name": "plain", "inputSchema": {}}]});
        let (client, v) = Variant::parse(&catalog.to_string()).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(client, "openai-strict");
        assert_eq!(
            v.listing.keys().collect::<Vec<_>>(),
            ["plain", "scene_find"]
        );
        let mut args = json!({"tag": null, "name": null, "a/b": null,
            "filters": [{"since": null, "kind": "x"}, {"since": 3}]});
        assert_eq!(
            v.map_call("scene_find", &mut args),
            Some("scene.find".to_owned())
        );
        assert_eq!(
            args,
            json!({"name": null, "filters": [{"kind": "x"}, {"since": 3}]})
        );
        assert_eq!(v.map_call("plain", &mut json!({})), None, "nothing to map");
    }

    #[test]
    fn clients_are_known_by_what_their_names_say() {
        let registered = ["claude-code", "openai-strict"];
        assert_eq!(
            client_for("claude-ai", &registered).as_deref(),
            Some("claude-code")
        );
        assert_eq!(
            client_for("OpenAI-MCP", &registered).as_deref(),
            Some("openai-strict")
        );
        assert_eq!(
            client_for("gemini-cli", &registered),
            None,
            "not registered"
        );
        assert_eq!(client_for("mcp", &registered), None);
    }
}
