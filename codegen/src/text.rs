//! Text for messages: lists of names, and "did you mean" suggestions.
//!
//! A leaf: it imports nothing of the crate.

/// Edit distance ignoring ASCII case, for "did you mean" suggestions.
pub fn levenshtein(a: &str, b: &str) -> usize {
    strsim::levenshtein(&a.to_ascii_lowercase(), &b.to_ascii_lowercase())
}

/// The closest candidate to `word`, if it is close enough to be a likely typo.
pub fn did_you_mean<'a>(
    word: &str,
    candidates: impl IntoIterator<Item = &'a str>,
) -> Option<&'a str> {
    let limit = (word.chars().count() / 3).max(1);
    candidates
        .into_iter()
        .map(|c| (levenshtein(word, c), c))
        .filter(|(d, _)| *d <= limit)
        .min_by_key(|(d, c)| (*d, *c))
        .map(|(_, c)| c)
}

/// "did you mean `x`?" when a candidate is close to `word`, else "use one of `a`, `b` and `c`".
pub fn suggest(word: &str, candidates: &[&str]) -> String {
    match did_you_mean(word, candidates.iter().copied()) {
        Some(s) => format!("did you mean `{s}`?"),
        None => format!("use one of {}", list(candidates)),
    }
}

/// `a`, `b` and `c` — for messages.
pub fn list(items: &[&str]) -> String {
    let quoted: Vec<String> = items.iter().map(|s| format!("`{s}`")).collect();
    match quoted.len() {
        0 => String::new(),
        1 => quoted[0].clone(),
        n => format!("{} and {}", quoted[..n - 1].join(", "), quoted[n - 1]),
    }
}

/// A value written as one word of a fixed set (`format: rave`).
pub trait Word: Sized + Copy + 'static {
    /// The words of every value, in declaration order.
    const WORDS: &'static [&'static str];
    /// The value written `word`, if any.
    fn from_word(word: &str) -> Option<Self>;
}

/// An enum of words (`format: rave`, `level: deny`): the enum, with `ALL`
/// (every variant, in order), `NAMES` (their words), `as_str`, `parse`,
/// `Display` as the word, and [`Word`]. Doc comments and attributes are kept.
macro_rules! word_enum {
    (
        $(#[$meta:meta])*
        pub enum $name:ident {
            $( $(#[$vmeta:meta])* $variant:ident = $word:literal, )+
        }
    ) => {
        $(#[$meta])*
        pub enum $name {
            $( $(#[$vmeta])* $variant, )+
        }

        impl $name {
            /// Every variant, in declaration order.
            pub const ALL: [$name; [$($word),+].len()] = [$($name::$variant),+];
            /// The word of every variant, in declaration order.
            pub const NAMES: [&'static str; [$($word),+].len()] = [$($word),+];

            /// Its word, as written in specs and on the command line.
            pub fn as_str(self) -> &'static str {
                match self {
                    $( $name::$variant => $word, )+
                }
            }

            /// The variant written `word`, if any.
            pub fn parse(word: &str) -> Option<$name> {
                $name::ALL.into_iter().find(|v| v.as_str() == word)
            }
        }

        impl $crate::text::Word for $name {
            const WORDS: &'static [&'static str] = &$name::NAMES;

            fn from_word(word: &str) -> Option<$name> {
                $name::parse(word)
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.as_str())
            }
        }
    };
}
pub(crate) use word_enum;

/// Files compiled into toolgen, by name: `embedded!("../dir/"; "a", "b/c")`
/// is `&[("a", include_str!("../dir/a")), ("b/c", include_str!("../dir/b/c"))]`,
/// the directory relative to the file that uses it, as `include_str!` takes it.
macro_rules! embedded {
    ($dir:literal; $($name:literal),+ $(,)?) => {
        &[$(($name, include_str!(concat!($dir, $name)))),+]
    };
}
pub(crate) use embedded;
