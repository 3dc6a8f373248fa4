//! The typify boundary: the only place typify is called.
//!
//! typify is a type mapper, not a validator (the runtime validates arguments
//! against the JSON Schema first), and it reports some failures by panicking:
//! every call is wrapped here, silently, and a failure becomes an `Err` that
//! the emitter turns into a located TG0801 diagnostic naming the tool. Its
//! output is taken as a token stream and parsed once into a syntax tree.

use std::cell::Cell;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Once;

use serde_json::Value;
use typify::TypeSpaceImpl;

use super::prepare;

/// What typify made of one schema: the items, and (when asked for) the name
/// and the standard-trait implementations of every type in it.
pub struct Typified {
    pub items: Vec<syn::Item>,
    pub types: Vec<(String, Vec<TypeSpaceImpl>)>,
}

/// Whether [`typify()`] lists the types' names and implementations
/// ([`Typified::types`]): work a tool's module does not need.
#[derive(Clone, Copy, PartialEq)]
pub enum Impls {
    Listed,
    Unlisted,
}

/// A definition typify must not generate but refer to as `path`, a type
/// with the given implementations (a type of the tool set's shared module).
#[derive(Debug)]
pub struct Replacement {
    pub type_name: String,
    pub path: String,
    pub impls: Vec<TypeSpaceImpl>,
}

/// The Rust items of `schema`'s definitions and, when `name` is given, of its
/// root type under that name; definitions in `replace` are referred to, not generated.
pub fn typify(
    schema: &Value,
    name: Option<&str>,
    replace: &[Replacement],
    impls: Impls,
) -> Result<Typified, String> {
    let replaced: Vec<&str> = replace.iter().map(|r| r.type_name.as_str()).collect();
    let prepared = prepare::for_typify(schema, name, &replaced);
    // typify reports some failures by panicking; they become errors below.
    let result = quietly(|| -> Result<Typified, String> {
        let root: schemars08::schema::RootSchema =
            serde_json::from_value(prepared).map_err(|e| e.to_string())?;
        let mut settings = SETTINGS.with(Clone::clone);
        for r in replace {
            settings.with_replacement(&r.type_name, &r.path, r.impls.iter().copied());
        }
        let mut space = typify::TypeSpace::new(&settings);
        space.add_root_schema(root).map_err(|e| e.to_string())?;
        let types: Vec<(String, Vec<TypeSpaceImpl>)> = match impls {
            Impls::Unlisted => Vec::new(),
            Impls::Listed => space
                .iter_types()
                .map(|t| {
                    let impls = [
                        TypeSpaceImpl::FromStr,
                        TypeSpaceImpl::FromStringIrrefutable,
                        TypeSpaceImpl::Display,
                        TypeSpaceImpl::Default,
                    ]
                    .into_iter()
                    .filter(|i| t.has_impl(*i))
                    .collect();
                    (t.name(), impls)
                })
                .collect(),
        };
        let stream = without_error_module(space.to_stream());
        let file: syn::File = syn::parse2(stream).map_err(|e| e.to_string())?;
        // typify has been seen to give two types one name; the code would not compile.
        if let Some(name) = twice_named(&file.items) {
            return Err(format!(
                "typify gives two types the name `{name}`; rename the definition or the property it comes from"
            ));
        }
        Ok(Typified {
            items: file.items,
            types,
        })
    });
    match result {
        Ok(r) => r,
        Err(p) => Err(p
            .downcast_ref::<&str>()
            .map(|s| (*s).to_owned())
            .or_else(|| p.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "typify panicked".to_owned())),
    }
}

/// typify writes its conversion error type, with five impls, into every
/// type space (`pub mod error { pub struct ConversionError .. }`); the
/// generated code uses the runtime's one instead (`post`). The module's
/// body is replaced by that `use` before parsing: the same tree, without
/// parsing some forty lines per schema only to throw them away.
fn without_error_module(stream: proc_macro2::TokenStream) -> proc_macro2::TokenStream {
    use proc_macro2::{Delimiter, Group, TokenTree};
    let is_ident =
        |t: Option<&TokenTree>, name: &str| matches!(t, Some(TokenTree::Ident(i)) if i == name);
    let mut trees: Vec<TokenTree> = stream.into_iter().collect();
    for i in 3..trees.len() {
        let TokenTree::Group(g) = &trees[i] else {
            continue;
        };
        let holds_conversion_error = g.delimiter() == Delimiter::Brace
            && is_ident(trees.get(i - 3), "pub")
            && is_ident(trees.get(i - 2), "mod")
            && is_ident(trees.get(i - 1), "error")
            && g.stream()
                .into_iter()
                .take(8)
                .any(|t| is_ident(Some(&t), "ConversionError"));
        if holds_conversion_error {
            let body = quote::quote!(
                pub use ::toolgen_runtime::ConversionError;
            );
            trees[i] = TokenTree::Group(Group::new(Delimiter::Brace, body));
        }
    }
    trees.into_iter().collect()
}

/// A name two of `items`' types have (structs, enums, aliases), if any.
fn twice_named(items: &[syn::Item]) -> Option<String> {
    let mut names: Vec<&syn::Ident> = items
        .iter()
        .filter_map(|item| match item {
            syn::Item::Struct(s) => Some(&s.ident),
            syn::Item::Enum(e) => Some(&e.ident),
            syn::Item::Type(t) => Some(&t.ident),
            _ => None,
        })
        .collect();
    names.sort();
    names
        .windows(2)
        .find(|w| w[0] == w[1])
        .map(|w| w[0].to_string())
}

thread_local! {
    static QUIET: Cell<bool> = const { Cell::new(false) };
    /// The settings every call starts from (made once per thread: typify
    /// parses the map type's path from text whenever they are made).
    static SETTINGS: typify::TypeSpaceSettings = {
        let mut settings = typify::TypeSpaceSettings::default();
        settings.with_struct_builder(false);
        // Ordered maps: a typed value serializes the same way on every run (typify's
        // default, `HashMap`, would not).
        settings.with_map_type("::std::collections::BTreeMap");
        settings
    };
}

/// Runs `f`, catching a panic without the panic hook printing it. The hook
/// is wrapped once, process-wide, and stays silent only for this thread while
/// `f` runs: panics elsewhere (other threads, tests) are reported as before.
fn quietly<R>(f: impl FnOnce() -> R) -> std::thread::Result<R> {
    static WRAP: Once = Once::new();
    WRAP.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if !QUIET.with(Cell::get) {
                previous(info);
            }
        }));
    });
    QUIET.with(|q| q.set(true));
    let result = catch_unwind(AssertUnwindSafe(f));
    QUIET.with(|q| q.set(false));
    result
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use serde_json::json;

    /// The items as text, for tests.
    pub(crate) fn text(items: &[syn::Item]) -> String {
        prettyplease::unparse(&syn::File {
            shebang: None,
            frontmatter: None,
            attrs: Vec::new(),
            items: items.to_vec(),
        })
    }

    fn code(schema: &Value, name: Option<&str>, replace: &[Replacement]) -> String {
        typify(schema, name, replace, Impls::Unlisted)
            .map(|t| text(&t.items))
            .unwrap_or_else(|e| panic!("{e}"))
    }

    #[test]
    fn a_name_given_twice_is_found() {
        let file: syn::File = syn::parse_quote! {
            pub struct A {}
            pub enum B {}
            impl A {}
            pub type A = u8;
        };
        assert_eq!(twice_named(&file.items).as_deref(), Some("A"));
        assert_eq!(twice_named(&file.items[..3]), None);
    }

    #[test]
    fn failures_are_errors_not_panics() {
        // A reference typify cannot resolve (validation would catch it first; this
        // checks the boundary itself).
        let bad = json!({"type": "object", "properties": {"a": {"$ref": "#/definitions/Missing"}}});
        assert!(typify(&bad, Some("Input"), &[], Impls::Unlisted).is_err());
        let good = json!({"type": "object", "properties": {"when": {"type": "string", "format": "date-time", "pattern": "^2"}}});
        let code = code(&good, Some("Input"), &[]);
        assert!(
            code.contains("struct Input") && !code.contains("chrono") && !code.contains("regress"),
            "{code}"
        );
    }

    #[test]
    fn shared_names_are_the_names_typify_gives() {
        for (def, name) in [
            ("Point", "Point"),
            ("nestedArray", "NestedArray"),
            ("GeoJSONPoint", "GeoJsonPoint"),
            ("Point3D", "Point3D"),
        ] {
            let schema = json!({"$defs": {def: {"type": "object", "properties": {"x": {"type": "integer"}}}}});
            let typified =
                typify(&schema, None, &[], Impls::Listed).unwrap_or_else(|e| panic!("{e}"));
            assert!(
                typified.types.iter().any(|(n, _)| n == name),
                "{def}: {:?}",
                typified.types
            );
        }
    }

    #[test]
    fn definitions_named_alike_get_types_apart() {
        let schema = json!({
            "type": "object",
            "properties": {
                "a": {"$ref": "#/$defs/Point"},
                "b": {"$ref": "#/$defs/point"},
                "d": {"$ref": "#/$defs/a-b"},
                "e": {"$ref": "#/$defs/a_b"}
            },
            "$defs": {
                "Point": {"type": "string"},
                "point": {"type": "object", "properties": {"x": {"type": "integer"}}},
                "a-b": {"type": "boolean"},
                "a_b": {"type": "number"}
            }
        });
        let file = code(&schema, Some("Input"), &[]);
        for ty in [
            "pub struct Point(",
            "pub struct Point2 {",
            "pub struct AB(",
            "pub struct AB2(",
        ] {
            assert!(file.contains(ty), "{ty}: {file}");
        }
    }

    #[test]
    fn replaced_definitions_are_referred_to_not_generated() {
        let schema = json!({
            "type": "object",
            "properties": {"at": {"$ref": "#/$defs/Point"}},
            "required": ["at"],
            "$defs": {"Point": {"type": "object", "properties": {"x": {"type": "integer"}}}}
        });
        let replace = [Replacement {
            type_name: "Point".to_owned(),
            path: "super::super::defs::Point".to_owned(),
            impls: Vec::new(),
        }];
        let code = code(&schema, Some("Input"), &replace);
        assert!(!code.contains("struct Point"), "{code}");
        assert!(code.contains("super::super::defs::Point"), "{code}");
    }

    /// A definition (or the root) that is null or an object: typify would name the
    /// object after it too, two types of one name. The object gets its own name.
    #[test]
    fn nullable_objects_get_a_type_of_their_own() {
        let schema = json!({
            "anyOf": [
                {"type": "object", "properties": {"thing": {"$ref": "#/$defs/Thing"}}},
                {"type": "null"}
            ],
            "$defs": {
                "Thing": {"oneOf": [{"type": "null"}, {"type": "string", "enum": ["a", "b"]}]},
                "ThingInner": {"type": "integer"},
                "Plain": {"anyOf": [{"type": "string"}, {"type": "null"}]}
            }
        });
        let typified =
            typify(&schema, Some("Output"), &[], Impls::Listed).unwrap_or_else(|e| panic!("{e}"));
        let names: Vec<&str> = typified.types.iter().map(|(n, _)| n.as_str()).collect();
        for name in [
            "Output",
            "OutputInner",
            "Thing",
            "ThingInner",
            "ThingInner2",
            "Plain",
        ] {
            assert!(names.contains(&name), "{name} in {names:?}");
        }
        assert!(
            !names.contains(&"PlainInner"),
            "a nullable string needs no type: {names:?}"
        );
        let code = text(&typified.items);
        assert!(
            code.contains("pub struct Thing(pub ::std::option::Option<ThingInner2>);"),
            "{code}"
        );

        // A replaced (shared) definition is the shared module's business.
        let mut v = schema.clone();
        prepare::nullable_types_apart(&mut v, None, &["Thing"]);
        assert_eq!(v["$defs"]["Thing"], schema["$defs"]["Thing"]);
    }

    /// `patternProperties` are a map: of the pattern's schema when no other key
    /// is allowed, of any value when a key that matches no pattern may hold anything.
    #[test]
    fn pattern_properties_are_a_map_of_what_the_keys_may_hold() {
        let typed = |additional: Option<Value>| {
            let mut labels = json!({
                "type": "object",
                "patternProperties": {"^x-": {"type": "string"}}
            });
            if let Some(a) = additional {
                labels["additionalProperties"] = a;
            }
            let schema = json!({
                "type": "object",
                "properties": {"labels": labels},
                "required": ["labels"]
            });
            let code = code(&schema, Some("Input"), &[]);
            assert!(!code.contains("regress"), "{code}");
            // Without the line breaks prettyplease puts in long types.
            code.split_whitespace().collect::<String>()
        };
        let closed = typed(Some(Value::Bool(false)));
        assert!(
            closed.contains("BTreeMap<::std::string::String,::std::string::String,>"),
            "{closed}"
        );
        for open in [None, Some(Value::Bool(true))] {
            let code = typed(open);
            assert!(
                code.contains("::serde_json::Map<::std::string::String,::serde_json::Value>"),
                "{code}"
            );
        }
    }
}
