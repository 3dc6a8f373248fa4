//! [`Generator::breaking`] and [`Generator::convert`]: the specs compared with
//! an earlier version of them, and written in another input format.

use crate::emit::{self, GeneratedFiles};
use crate::ir::{Format, Project};
use crate::load::{self, Loaded};
use crate::output::{self, Prune, Recorded};
use crate::progress::Progress;
use std::sync::Arc;
use std::time::Instant;

use super::{GenerateError, Generated, Generator, Timings, write_out};

impl Generator {
    /// Converts the specs into another input format, one file per tool
    /// (`OUT/<tool set>/<id>.yaml`); only RAVE YAML is written so far.
    /// Nothing is written when the specs have errors.
    pub fn convert(&self, to: Format) -> Result<Generated, GenerateError> {
        if to != Format::Rave {
            return Err(GenerateError::Unsupported(format!(
                "converting to `{to}` is not supported yet; use `--to rave`"
            )));
        }
        let out = self.out_dir.as_deref().ok_or(GenerateError::NoOutDir)?;
        let mut timings = Timings::default();
        let started = Instant::now();
        let loaded = self.load();
        timings.load = started.elapsed();
        if !self.accepts(&loaded) {
            return Err(GenerateError::Invalid(Box::new(loaded)));
        }
        let stream = Arc::new(
            output::Streamed::open(out, Recorded::default()).map_err(GenerateError::Output)?,
        );
        let mut files = GeneratedFiles::passing_to(stream.clone());
        for set in &loaded.project.tool_sets {
            for tool in &set.tools {
                files.add(
                    format!("{}/{}.yaml", set.name, tool.id.value),
                    emit::rave::to_rave_yaml(tool),
                );
            }
        }
        write_out(loaded, files, &stream, Prune::Owned, timings)
    }

    /// Compares the specs with an earlier version of them (`toolgen
    /// breaking`): the findings are the diagnostics of the returned
    /// [`Loaded`] (the current specs, with the earlier version's files added
    /// to its `SourceDb` under names such as `HEAD~1:specs/a.json`), at the
    /// levels the command line and the manifests' `lints` give them. The
    /// current specs must be free of errors.
    ///
    /// With `generated_code`, Rust and C# names that change while the wire
    /// stays the same are reported in every tool set (otherwise only where a manifest
    /// turns the `generated` category on).
    pub fn breaking(
        &self,
        against: &crate::against::Against,
        generated_code: bool,
    ) -> Result<Loaded, GenerateError> {
        let new = self.load();
        if new.diagnostics.has_errors() {
            return Err(GenerateError::Invalid(Box::new(new)));
        }
        let earlier =
            crate::against::earlier(against, &self.inputs, self.options.manifest.as_deref())
                .map_err(GenerateError::Unsupported)?;
        let mut old_options = self.load_options();
        old_options.manifest = earlier.manifest.clone();
        old_options.progress = Progress::default();
        let old = if earlier.inputs.is_empty() && earlier.manifest.is_none() {
            Loaded::default()
        } else {
            load::load(&earlier.inputs, &old_options)
        };
        let Loaded {
            mut db, project, ..
        } = new;
        let offset = u32::try_from(db.len()).unwrap_or(u32::MAX);
        for (_, f) in old.db.files() {
            db.add_as(&f.path, earlier.display(&f.path), f.text().to_owned());
        }
        let old_loc = |l: crate::source::Loc| crate::source::Loc {
            file: crate::source::FileId(l.file.0.saturating_add(offset)),
            span: l.span,
        };
        let mut findings = crate::diag::Diagnostics::new();
        for d in crate::breaking::compare(&old.project, &project, &old_loc) {
            findings.push(d);
        }
        let wants_names = generated_code
            || project
                .tool_sets
                .iter()
                .any(|s| s.breaking.checks_generated());
        if wants_names {
            use crate::breaking::names::Lang;
            for d in crate::breaking::names::compare_rust_serde(
                &old.project,
                &project,
                &old_loc,
                generated_code,
            ) {
                findings.push(d);
            }
            let rust = |p: &Project| {
                let mut g = Generator::new().rust();
                g.emit.regenerate = self.emit.regenerate.clone();
                let (files, _) = g.render_checked(p);
                emit::rust::api::public_names(p, &files)
            };
            let csharp = |p: &Project| {
                let mut names = crate::breaking::names::Names::new();
                for set in &p.tool_sets {
                    for (id, n) in emit::csharp::public_names(set) {
                        names.insert((set.name.clone(), id), n);
                    }
                }
                names
            };
            for lang in [Lang::Rust, Lang::CSharp] {
                let names = |p: &Project| match lang {
                    Lang::Rust => rust(p),
                    Lang::CSharp => csharp(p),
                };
                let (was, now) = (names(&old.project), names(&project));
                for d in crate::breaking::names::compare_names(
                    lang,
                    (&old.project, &was),
                    (&project, &now),
                    &old_loc,
                    generated_code,
                ) {
                    findings.push(d);
                }
            }
        }
        let mut report = Loaded {
            db,
            project,
            diagnostics: findings,
            spec_files: 0,
        };
        load::apply_lints(&mut report, &self.options.lints);
        report.diagnostics.sort(&report.db);
        Ok(report)
    }
}
