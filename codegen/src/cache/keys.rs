//! Digests of a project's parts, for the keys of cached pieces: each tool's
//! (every IR field, locations too, destructured without `..` so a new field
//! can never be left out of a key) and each tool set's settings (every field
//! but its tools). Computed once per run, on every core, and shared by the
//! emitters, instead of each emitter hashing every tool again.
//!
//! A tool's key is its digest as its reader made it ([`Tool::digest_as_read`])
//! with what the set's assembly filled in hashed beside it ([`tool_key`]).
//!
//! [`PieceCache`] is the store the keys are for, as validation and the
//! emitters see it; `cache` implements it on disk.

use std::collections::HashMap;

use crate::digest::{Digest, Hasher};
use crate::ir::{Project, Tool, ToolSet};

/// The digests of a project's tool sets, by name.
#[derive(Debug, Default)]
pub struct Keys {
    sets: HashMap<String, SetKeys>,
}

/// One tool set's digests: its settings, and its tools' in tool order.
#[derive(Debug)]
pub struct SetKeys {
    pub settings: Digest,
    pub tools: Vec<Digest>,
}

/// A tool's key: its digest as read (`as_read`, [`Tool::digest_as_read`])
/// and the fields its tool set's assembly filled in.
pub fn tool_key(as_read: Digest, tool: &Tool) -> Digest {
    Hasher::new()
        .str("tool key")
        .digest(as_read)
        .hash(&(&tool.model_description, &tool.r_function))
        .finish()
}

impl Keys {
    /// The keys of `project`'s parts, every tool hashed on every core.
    pub fn of(project: &Project) -> Keys {
        let tools: Vec<&Tool> = project.tools().collect();
        let mut digests = crate::par::map(tools.len(), |i| {
            tool_key(tools[i].digest_as_read(), tools[i])
        })
        .into_iter();
        let sets = project
            .tool_sets
            .iter()
            .map(|set| {
                let keys = SetKeys {
                    settings: settings(set),
                    tools: digests.by_ref().take(set.tools.len()).collect(),
                };
                (set.name.clone(), keys)
            })
            .collect();
        Keys { sets }
    }

    /// The digests of `set` (of this project or of a part of it: the same
    /// set, whole), `None` for a set the project does not hold as it is.
    pub fn set(&self, set: &ToolSet) -> Option<&SetKeys> {
        self.sets
            .get(&set.name)
            .filter(|k| k.tools.len() == set.tools.len())
    }

    /// The digest of the `index`th tool of `set`.
    pub fn tool(&self, set: &ToolSet, index: usize) -> Option<Digest> {
        self.set(set)?.tools.get(index).copied()
    }

    /// The key of a piece of work made from the `index`th tool of `set`
    /// and its set's settings only: their digests, and what `extra` mixes
    /// in (which piece it is, and anything else it is made from).
    pub fn piece(
        &self,
        set: &ToolSet,
        index: usize,
        extra: impl FnOnce(&mut Hasher),
    ) -> Option<Digest> {
        let keys = self.set(set)?;
        let mut h = Hasher::new();
        h.digest(keys.settings).digest(*keys.tools.get(index)?);
        extra(&mut h);
        Some(h.finish())
    }
}

/// A set's fields but its tools. Destructured without `..`: a field added
/// to `ToolSet` does not compile until it is hashed here too.
fn settings(set: &ToolSet) -> Digest {
    let ToolSet {
        name,
        title,
        description,
        version,
        format,
        namespace,
        categories,
        tiers,
        safety_levels,
        max_tier,
        default_timeout_seconds,
        model_description,
        execution,
        rust_serde,
        envelope,
        templates,
        manifest,
        outputs,
        runtime,
        arrays_need_items,
        format_errors,
        implementation_language,
        lints,
        breaking,
        bridge_port,
        r,
        clients,
        split_unions,
        tools: _,
    } = set;
    Hasher::new()
        .str("tool set settings")
        .debug(&(name, title, description, version, format, namespace))
        .debug(&(categories, tiers, safety_levels, max_tier))
        .debug(&(
            default_timeout_seconds,
            model_description,
            execution,
            rust_serde,
        ))
        .debug(&(envelope, templates, manifest, outputs, runtime))
        .debug(&(
            arrays_need_items,
            format_errors,
            implementation_language,
            lints,
        ))
        .debug(&(breaking, bridge_port, r, clients, split_unions))
        .finish()
}

/// Pieces of work kept between runs, by key: the digest of everything the
/// piece is made from. A phase asks before doing the work, and hands what
/// it made (without problems) to `put`; what the cache gives back must be
/// what doing the work would give, so a key must cover every input of the
/// piece. Implemented on disk by `cache`; emitters keep rendered files in
/// it, validation the verdicts of tools found clean.
pub trait PieceCache: Sync {
    fn get(&self, key: Digest) -> Option<Vec<u8>>;
    fn put(&self, key: Digest, value: &[u8]);
}

/// Pieces in memory, for tests: how many were given back, and what was kept.
#[cfg(test)]
#[derive(Default)]
pub(crate) struct MemoryCache {
    pub pieces: std::sync::Mutex<std::collections::HashMap<Digest, Vec<u8>>>,
    pub hits: std::sync::atomic::AtomicUsize,
    pub puts: std::sync::atomic::AtomicUsize,
    /// Every piece kept, in order.
    pub kept: std::sync::Mutex<Vec<Vec<u8>>>,
}

#[cfg(test)]
impl PieceCache for MemoryCache {
    fn get(&self, key: Digest) -> Option<Vec<u8>> {
        let hit = self.pieces.lock().ok()?.get(&key).cloned();
        if hit.is_some() {
            self.hits.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        }
        hit
    }
    fn put(&self, key: Digest, value: &[u8]) {
        self.puts.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        if let Ok(mut k) = self.kept.lock() {
            k.push(value.to_vec());
        }
        if let Ok(mut p) = self.pieces.lock() {
            p.insert(key, value.to_vec());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A tool as toolgen reads it (an MCP tool with a time limit and an
    /// example), for changing one field at a time.
    fn tool() -> Tool {
        let spec = serde_json::json!({
            "name": "tool",
            "description": "A tool.",
            "inputSchema": {"type": "object", "properties": {"path": {"type": "string"}}},
            "_meta": {"toolgen": {"timeoutSeconds": 12, "examples": [{"input": {"path": "a"}}]}},
        });
        crate::load::json_tool_set("keys", &[spec])
            .tools
            .into_iter()
            .next()
            .unwrap_or_else(|| panic!("no tool"))
    }

    fn key(t: &Tool) -> Digest {
        tool_key(t.digest_as_read(), t)
    }

    /// Equal tools have equal keys; a change to any part, deep in a schema,
    /// in a location, in the time limit or in an example, changes the key.
    #[test]
    fn a_tool_key_covers_every_part() {
        let base = tool();
        assert_eq!(key(&base), key(&base.clone()));
        type Change = (&'static str, fn(&mut Tool));
        let changes: Vec<Change> = vec![
            ("description", |t| t.description.value.push('!')),
            ("schema", |t| {
                t.input.value["properties"]["path"]["type"] = "integer".into()
            }),
            ("location", |t| {
                t.input.locs.values_mut().for_each(|l| l.span.start += 1)
            }),
            ("timeout", |t| {
                if let Some(s) = &mut t.timeout_seconds {
                    s.value += 0.5;
                }
            }),
            ("example", |t| {
                t.examples
                    .iter_mut()
                    .for_each(|e| *e.input.value = "b".into())
            }),
            ("approval", |t| t.requires_approval = !t.requires_approval),
            ("model description", |t| {
                t.model_description = Some("m".into())
            }),
            ("r function", |t| {
                t.r_function = Some(crate::ir::RFunction {
                    package: "p".into(),
                    function: "f".into(),
                })
            }),
        ];
        for (what, change) in changes {
            let mut t = base.clone();
            change(&mut t);
            assert_ne!(t, base, "{what}: the change must change the tool");
            assert_ne!(key(&t), key(&base), "{what}");
        }
        assert!(base.timeout_seconds.is_some() && !base.examples.is_empty());
    }
}
