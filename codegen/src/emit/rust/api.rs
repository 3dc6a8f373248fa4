//! The public Rust names of generated tool files, by wire position: what a
//! program written against the generated crate calls things. `toolgen
//! breaking` compares them between two versions of the specs (the
//! generated-code category): a name that changes while the wire stays the
//! same breaks compiled users, not callers on the wire.

use std::collections::{BTreeMap, BTreeSet};

use syn::{Fields, Item, Type};

use super::GeneratedFiles;
use crate::ident;
use crate::ir::Project;
use crate::schema::pointer_join;

/// Per tool set and tool id: its public names, keyed by what they name
/// (`module`, `type`, `field`, `variant`) and where on the wire (`input` or
/// `output` followed by a JSON pointer into that side's schema).
pub type Names = BTreeMap<(String, String), BTreeMap<(String, String), String>>;

/// The public names of every tool of `project` in `files`, the Rust crate
/// the Rust emitter made of it (tools whose file is missing are left out).
pub fn public_names(project: &Project, files: &GeneratedFiles) -> Names {
    let mut out = Names::new();
    for set in &project.tool_sets {
        let ids: Vec<&str> = set.tools.iter().map(|t| t.id.value.as_str()).collect();
        let modules = ident::unique(&ids, ident::rust_snake);
        let dir = ident::rust_snake(&set.name);
        for (tool, module) in set.tools.iter().zip(&modules) {
            let Some(text) = files
                .get(&format!("rust/src/{dir}/{module}.rs"))
                .and_then(|b| std::str::from_utf8(b).ok())
            else {
                continue;
            };
            let Ok(file) = syn::parse_file(text) else {
                continue;
            };
            let mut names = BTreeMap::new();
            names.insert(("module".to_owned(), String::new()), module.clone());
            for item in &file.items {
                let Item::Mod(m) = item else { continue };
                let side = m.ident.to_string();
                let Some((_, items)) = &m.content else {
                    continue;
                };
                if side != "input" && side != "output" {
                    continue;
                }
                let root = if side == "input" { "Input" } else { "Output" };
                let root = reexported(&file.items, &side).unwrap_or_else(|| root.to_owned());
                let mut walk = Walk {
                    items,
                    side: &side,
                    names: &mut names,
                    seen: BTreeSet::new(),
                };
                walk.ty(&root, "");
            }
            out.insert((set.name.clone(), tool.id.value.clone()), names);
        }
    }
    out
}

/// The type `pub use self::<side>::X (as ..)` re-exports.
fn reexported(items: &[Item], side: &str) -> Option<String> {
    items.iter().find_map(|i| {
        let Item::Use(u) = i else { return None };
        let syn::UseTree::Path(p) = &u.tree else {
            return None;
        };
        let syn::UseTree::Path(p) = &*p.tree else {
            return None;
        };
        if p.ident != side {
            return None;
        }
        match &*p.tree {
            syn::UseTree::Name(n) => Some(n.ident.to_string()),
            syn::UseTree::Rename(r) => Some(r.ident.to_string()),
            _ => None,
        }
    })
}

struct Walk<'a> {
    items: &'a [Item],
    side: &'a str,
    names: &'a mut BTreeMap<(String, String), String>,
    seen: BTreeSet<String>,
}

impl Walk<'_> {
    fn add(&mut self, what: &str, ptr: &str, name: String) {
        self.names
            .insert((what.to_owned(), format!("{}{ptr}", self.side)), name);
    }

    /// The type named `name` of this side's module, at `ptr`.
    fn ty(&mut self, name: &str, ptr: &str) {
        if !self.seen.insert(name.to_owned()) {
            return;
        }
        for item in self.items {
            match item {
                Item::Struct(s) if s.ident == name => {
                    self.add("type", ptr, name.to_owned());
                    let Fields::Named(fields) = &s.fields else {
                        return;
                    };
                    for f in &fields.named {
                        let Some(ident) = &f.ident else { continue };
                        let wire = serde_rename(&f.attrs).unwrap_or_else(|| ident.to_string());
                        let at = pointer_join(&pointer_join(ptr, "properties"), &wire);
                        self.add("field", &at, ident.to_string());
                        self.field_type(&f.ty, &at);
                    }
                    return;
                }
                Item::Enum(e) if e.ident == name => {
                    self.add("type", ptr, name.to_owned());
                    for v in &e.variants {
                        if let Some(wire) = serde_rename(&v.attrs) {
                            self.add(
                                "variant",
                                &pointer_join(&pointer_join(ptr, "enum"), &wire),
                                v.ident.to_string(),
                            );
                        }
                    }
                    return;
                }
                _ => {}
            }
        }
    }

    /// Follows a field's type through `Option`, `Vec`, maps and boxes.
    fn field_type(&mut self, ty: &Type, ptr: &str) {
        let Type::Path(p) = ty else { return };
        let Some(last) = p.path.segments.last() else {
            return;
        };
        let inner: Vec<&Type> = match &last.arguments {
            syn::PathArguments::AngleBracketed(a) => a
                .args
                .iter()
                .filter_map(|g| match g {
                    syn::GenericArgument::Type(t) => Some(t),
                    _ => None,
                })
                .collect(),
            _ => Vec::new(),
        };
        let name = last.ident.to_string();
        match (name.as_str(), inner.as_slice()) {
            ("Option" | "Box" | "Nullable", [t]) => self.field_type(t, ptr),
            ("Vec", [t]) => self.field_type(t, &pointer_join(ptr, "items")),
            ("BTreeMap" | "HashMap", [_, t]) => {
                self.field_type(t, &pointer_join(ptr, "additionalProperties"))
            }
            (_, []) if p.path.segments.len() == 1 => self.ty(&name, ptr),
            _ => {}
        }
    }
}

/// The value of `#[serde(rename = "..")]`, if any.
fn serde_rename(attrs: &[syn::Attribute]) -> Option<String> {
    let mut found = None;
    for a in attrs.iter().filter(|a| a.path().is_ident("serde")) {
        let _ = a.parse_nested_meta(|m| {
            if m.path.is_ident("rename") {
                let s: syn::LitStr = m.value()?.parse()?;
                found = Some(s.value());
            } else if m.input.peek(syn::Token![=]) {
                let _: syn::Expr = m.value()?.parse()?;
            }
            Ok(())
        });
    }
    found
}
