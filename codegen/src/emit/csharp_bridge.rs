//! The C# bridge runtime (`com.toolgen.bridge`), built into toolgen: the one
//! copy lives in `runtime/csharp/`; a generated tools package depends on it,
//! and by default it is written beside the package (`csharp-bridge/`) so that
//! the pair installs into a Unity project as it is. A test checks that the
//! list below holds every file of `runtime/csharp/`.

use crate::files::GeneratedFiles;

/// The package's files, by path inside it.
pub const FILES: &[(&str, &str)] = crate::text::embedded!("../../../runtime/csharp/";
    "Editor/Bridge.cs",
    "Editor/Dispatcher.cs",
    "Editor/Toolgen.Bridge.Editor.asmdef",
    "Editor/Tools.cs",
    "README.md",
    "package.json",
);

/// The package's name and version, which the tools package depends on.
pub const PACKAGE: &str = "com.toolgen.bridge";
/// The assembly the tools package's assembly references.
pub const ASSEMBLY: &str = "Toolgen.Bridge.Editor";

/// Where a generation writes the bridge package, beside `csharp/`.
pub const DIR: &str = "csharp-bridge";

/// Whether the bridge package is written beside the generated one.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum CsharpBridge {
    /// Written to `csharp-bridge/` (the default: the output installs as it is).
    #[default]
    Bundled,
    /// Not written: the Unity project has `com.toolgen.bridge` already.
    External,
}

impl CsharpBridge {
    pub fn parse(s: &str) -> Result<CsharpBridge, String> {
        match s {
            "bundled" => Ok(CsharpBridge::Bundled),
            "external" => Ok(CsharpBridge::External),
            other => Err(format!(
                "`{other}` is not a C# bridge source; write `bundled` (written beside the package) or `external` (installed already)"
            )),
        }
    }
}

/// Adds the bridge package under [`DIR`].
pub fn add_bundled(out: &mut GeneratedFiles) {
    for (path, text) in FILES {
        out.add(format!("{DIR}/{path}"), *text);
    }
}
