//! Names in generated Rust: typify's type names, and numbered names that keep
//! colliding ones apart.

use heck::ToPascalCase;

/// Close to the name typify gives definition `def`, for any name: typify
/// turns what is not an identifier character into a word break, PascalCases,
/// prefixes `X` to a name that is empty or does not start like an
/// identifier (`---` is `X`, `3d` is `X3d`), and appends `_` to a keyword.
pub fn approximate_type_name(def: &str) -> String {
    let name = match def {
        "+1" => "Plus1".to_owned(),
        "-1" => "Minus1".to_owned(),
        _ => def
            .replace('\'', "")
            .replace(|c: char| !(c.is_alphanumeric() || c == '_'), "-")
            .to_pascal_case(),
    };
    let name = match name.chars().next() {
        None => "X".to_owned(),
        Some(c) if c.is_alphabetic() || c == '_' => name,
        Some(_) => format!("X{name}"),
    };
    if typify::accept_as_ident(&name) {
        name
    } else {
        format!("{name}_")
    }
}

/// The name typify gives the type of definition `def`, when it can be told
/// for sure: typify runs the name through heck's PascalCase and then fixes up
/// what is not an identifier; names that need no fixing are the ones shared.
pub fn rust_type_name(def: &str) -> Option<String> {
    let simple = def.chars().next().is_some_and(|c| c.is_ascii_alphabetic())
        && def.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    if !simple {
        return None;
    }
    // Nothing here for typify to replace or fix up, so the name is exact.
    let name = approximate_type_name(def);
    (name == def.to_pascal_case()).then_some(name)
}

/// `base_2`, `base_3`, ...: the first that `taken` does not claim. A trailing
/// `_` (`self_`, a keyword escaped) is not doubled: `self_2`, not `self__2`,
/// which is not snake case.
pub fn numbered(base: &str, taken: impl Fn(&str) -> bool) -> String {
    let stem = match base.trim_end_matches('_') {
        "" => base,
        stem => stem,
    };
    (2..)
        .map(|n| format!("{stem}_{n}"))
        .find(|n| !taken(n))
        .unwrap_or_default()
}

/// `names` made distinct in order: the first of each name keeps it, the later
/// ones are `numbered` clear of every name given or made.
pub fn distinct_in_order(names: &[String]) -> Vec<String> {
    let mut made: Vec<String> = Vec::new();
    for old in names {
        let new = if made.contains(old) {
            numbered(old, |n| names.iter().chain(&made).any(|x| x == n))
        } else {
            old.clone()
        };
        made.push(new);
    }
    made
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shared_definition_names_are_the_names_typify_gives() {
        for (def, name) in [
            ("Point", Some("Point")),
            ("nestedArray", Some("NestedArray")),
            ("geo_json_point", Some("GeoJsonPoint")),
            ("GeoJSONPoint", Some("GeoJsonPoint")),
            ("Point3D", Some("Point3D")),
            ("3d", None),
            ("a-b", None),
            ("", None),
            ("self", None),
        ] {
            assert_eq!(rust_type_name(def).as_deref(), name, "{def}");
        }
        assert_eq!(numbered("self_", |_| false), "self_2");
        assert_eq!(
            distinct_in_order(&["a".into(), "a".into(), "a_2".into()]),
            ["a", "a_3", "a_2"]
        );
    }
}
