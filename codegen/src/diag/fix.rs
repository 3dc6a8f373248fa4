//! The builders of the fix a diagnostic suggests ([`Fix`]), where it is
//! certain enough for an editor to apply (`toolgen lsp` offers it as a
//! quick fix).

use super::{Diagnostic, Edit, Fix};

impl Diagnostic {
    /// A fix: the member `"key": value` added to the object whose opening
    /// the diagnostic points at.
    pub fn fix_member(mut self, key: &str, value: &str) -> Self {
        if let Some(loc) = self.loc {
            self.fix = Some(Fix {
                title: format!("Add `{key}`"),
                loc,
                edit: Edit::Member {
                    key: key.to_owned(),
                    value: value.to_owned(),
                },
            });
        }
        self
    }

    /// [`Diagnostic::fix_word`] when there is a word.
    pub fn maybe_fix_word(self, word: Option<&str>) -> Self {
        match word {
            Some(w) => self.fix_word(w),
            None => self,
        }
    }

    /// A fix: `word` in place of the scalar at the diagnostic's place.
    pub fn fix_word(mut self, word: &str) -> Self {
        if let Some(loc) = self.loc {
            self.fix = Some(Fix {
                title: format!("Replace with `{word}`"),
                loc,
                edit: Edit::Word(word.to_owned()),
            });
        }
        self
    }
}
