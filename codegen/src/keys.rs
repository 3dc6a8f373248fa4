//! Digests of a project's parts, for the keys of cached pieces: each tool's
//! (its `Hash`: every IR field, locations too, destructured without `..` so
//! a new field can never be left out of a key) and each tool set's settings
//! (every field but its tools). Computed once per run, on every core, and shared by the emitters,
//! instead of each emitter hashing every tool again.

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

impl Keys {
    pub fn of(project: &Project) -> Keys {
        let tools: Vec<&Tool> = project.tool_sets.iter().flat_map(|s| &s.tools).collect();
        let mut digests = crate::par::map_with(
            tools.len(),
            || (),
            |_, i| Hasher::new().hash(tools[i]).finish(),
        )
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
        envelope,
        templates,
        manifest,
        outputs,
        runtime,
        arrays_need_items,
        implementation_language,
        lints,
        breaking,
        bridge_port,
        r,
        tools: _,
    } = set;
    Hasher::new()
        .str("tool set settings")
        .debug(&(name, title, description, version, format, namespace))
        .debug(&(categories, tiers, safety_levels, max_tier))
        .debug(&(default_timeout_seconds, model_description, execution))
        .debug(&(envelope, templates, manifest, outputs, runtime))
        .debug(&(arrays_need_items, implementation_language, lints))
        .debug(&(breaking, bridge_port, r))
        .finish()
}
