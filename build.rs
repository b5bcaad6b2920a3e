//! Compiles every GLSL shader under `shaders-glsl/` to SPIR-V with shaderc and embeds it.
//!
//! * The stage comes from the extension: .comp, .rgen, .rmiss, .rchit, .rahit, .rint, .rcall.
//! * `#include` resolves against the including file's folder, then `shaders-glsl/include`,
//!   then the generated folder that holds `interface.glsl` (the GLSL side of
//!   `src/shader_interface.rs`).
//! * A shader that declares variants is compiled once per variant. A line such as
//!   `// variant: u32 SCAN_U32` (name, then defines as `NAME` or `NAME=VALUE`) adds one;
//!   the variant's SPIR-V is named `<file stem>_<variant>`.
//! * Any error or warning fails the build with the shader's file and line.
//! * The output is `$OUT_DIR/shaders.rs`: a table of (name, stage, SPIR-V) and one
//!   `ShaderId` constant per compiled shader, so a missing shader is a compile error in Rust.

use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};

const SHADER_ROOT: &str = "shaders-glsl";
const INTERFACE_SOURCE: &str = "src/shader_interface.rs";

/// GLSL text for every constant in `src/shader_interface.rs`, from the same declarations
/// the library expands into Rust constants: each is evaluated here, so an expression such as
/// `(1 << SAMPLE_BITS) - 1` reaches GLSL as its value.
macro_rules! gpu_constants {
    ($($(#[$meta:meta])* const $name:ident : $ty:ident = $value:expr;)*) => {
        $(
            #[allow(dead_code)]
            const $name: $ty = $value;
        )*
        fn constants_glsl() -> String {
            let mut out = String::new();
            $( out.push_str(&format!("const {} {} = {};\n", glsl_type(stringify!($ty)), stringify!($name), $name.glsl_literal())); )*
            out.push('\n');
            out
        }
    };
}

/// A constant's value as a GLSL literal of its type.
trait GlslLiteral {
    fn glsl_literal(&self) -> String;
}

impl GlslLiteral for u32 {
    fn glsl_literal(&self) -> String {
        format!("{self}u")
    }
}

impl GlslLiteral for i32 {
    fn glsl_literal(&self) -> String {
        self.to_string()
    }
}

impl GlslLiteral for f32 {
    /// Rust's shortest round-trip form, so the shader compiler reads back the same bits.
    fn glsl_literal(&self) -> String {
        assert!(
            self.is_finite(),
            "{INTERFACE_SOURCE}: a shared float constant must be finite"
        );
        let text = format!("{self:?}");
        if text.contains(['.', 'e']) {
            text
        } else {
            format!("{text}.0")
        }
    }
}

/// GLSL text for every struct in `src/shader_interface.rs`, built by the same macro call
/// the library expands into Rust structs.
macro_rules! gpu_structs {
    ($($(#[$meta:meta])* struct $name:ident { $($field:ident : $ty:ident),* $(,)? })*) => {
        fn interface_glsl() -> String {
            let mut out = String::new();
            $(
                out.push_str(&format!("struct {} {{\n", stringify!($name)));
                $( out.push_str(&format!("    {} {};\n", glsl_type(stringify!($ty)), stringify!($field))); )*
                out.push_str("};\n\n");
            )*
            out
        }
    };
}

include!("src/shader_interface.rs");

fn glsl_type(rust: &str) -> &'static str {
    match rust {
        "u32" => "uint",
        "i32" => "int",
        "f32" => "float",
        "u64" => "uint64_t",
        "Vec2" => "vec2",
        "Vec3" => "vec3",
        "Vec4" => "vec4",
        "UVec2" => "uvec2",
        "UVec4" => "uvec4",
        other => panic!("{INTERFACE_SOURCE}: no GLSL type for Rust type `{other}`"),
    }
}

struct Variant {
    name: String,
    defines: Vec<(String, Option<String>)>,
}

fn stage_of(path: &Path) -> Option<shaderc::ShaderKind> {
    use shaderc::ShaderKind::*;
    Some(match path.extension()?.to_str()? {
        "comp" => Compute,
        "rgen" => RayGeneration,
        "rmiss" => Miss,
        "rchit" => ClosestHit,
        "rahit" => AnyHit,
        "rint" => Intersection,
        "rcall" => Callable,
        _ => return None,
    })
}

fn stage_rust_name(kind: shaderc::ShaderKind) -> &'static str {
    use shaderc::ShaderKind::*;
    match kind {
        Compute => "Compute",
        RayGeneration => "RayGeneration",
        Miss => "Miss",
        ClosestHit => "ClosestHit",
        AnyHit => "AnyHit",
        Intersection => "Intersection",
        Callable => "Callable",
        _ => unreachable!("stage_of only returns the kinds above"),
    }
}

fn parse_variants(source: &str, file: &Path) -> Vec<Variant> {
    let mut variants = Vec::new();
    for (line_number, line) in source.lines().enumerate() {
        let Some(rest) = line.trim().strip_prefix("// variant:") else {
            continue;
        };
        let mut words = rest.split_whitespace();
        let Some(name) = words.next() else {
            fail(&format!(
                "{}:{}: `// variant:` needs a name",
                file.display(),
                line_number + 1
            ));
        };
        let defines = words
            .map(|word| match word.split_once('=') {
                Some((key, value)) => (key.to_string(), Some(value.to_string())),
                None => (word.to_string(), None),
            })
            .collect();
        variants.push(Variant {
            name: name.to_string(),
            defines,
        });
    }
    if variants.is_empty() {
        variants.push(Variant {
            name: String::new(),
            defines: Vec::new(),
        });
    }
    variants
}

fn collect_shaders(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<_> = fs::read_dir(dir)
        .unwrap_or_else(|e| fail(&format!("{}: {e}", dir.display())))
        .map(|entry| entry.expect("readable directory entry").path())
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            if path.file_name().is_some_and(|name| name != "include") {
                collect_shaders(&path, out);
            }
        } else if stage_of(&path).is_some() {
            out.push(path);
        }
    }
}

fn fail(message: &str) -> ! {
    eprintln!("{message}");
    std::process::exit(1);
}

fn resolve_include(
    requested: &str,
    kind: shaderc::IncludeType,
    requester: &str,
    search_dirs: &[PathBuf],
) -> shaderc::IncludeCallbackResult {
    let mut candidates = Vec::new();
    if kind == shaderc::IncludeType::Relative {
        if let Some(parent) = Path::new(requester).parent() {
            candidates.push(parent.join(requested));
        }
    }
    candidates.extend(search_dirs.iter().map(|dir| dir.join(requested)));
    for candidate in candidates {
        if let Ok(content) = fs::read_to_string(&candidate) {
            return Ok(shaderc::ResolvedInclude {
                resolved_name: candidate.display().to_string(),
                content,
            });
        }
    }
    Err(format!(
        "cannot find `{requested}` (searched the including file's folder and {search_dirs:?})"
    ))
}

fn main() {
    println!("cargo:rerun-if-changed={SHADER_ROOT}");
    println!("cargo:rerun-if-changed={INTERFACE_SOURCE}");
    println!("cargo:rerun-if-env-changed=WAVETRACE_SHADER_DEBUG");

    let out_dir = PathBuf::from(std::env::var("OUT_DIR").expect("cargo sets OUT_DIR"));
    let generated_dir = out_dir.join("generated");
    fs::create_dir_all(&generated_dir).expect("create generated shader folder");
    let interface = format!(
        "// Generated by build.rs from {INTERFACE_SOURCE}; edit that file, not this one.\n\
         #ifndef WAVETRACE_INTERFACE_GLSL\n#define WAVETRACE_INTERFACE_GLSL\n\n{}{}#endif\n",
        constants_glsl(),
        interface_glsl()
    );
    fs::write(generated_dir.join("interface.glsl"), interface).expect("write interface.glsl");

    let root = PathBuf::from(SHADER_ROOT)
        .canonicalize()
        .unwrap_or_else(|e| fail(&format!("{SHADER_ROOT}: {e}")));
    let search_dirs = vec![root.join("include"), generated_dir];
    let mut shader_files = Vec::new();
    collect_shaders(&root, &mut shader_files);

    let compiler =
        shaderc::Compiler::new().unwrap_or_else(|e| fail(&format!("shaderc: cannot create a compiler: {e}")));
    let debug_info = std::env::var("WAVETRACE_SHADER_DEBUG").is_ok_and(|v| v == "1");

    let mut table = String::new();
    let mut constants = String::new();
    let mut failures = Vec::new();
    let mut index = 0usize;
    for file in &shader_files {
        let kind = stage_of(file).expect("collect_shaders keeps only shader stages");
        let source = fs::read_to_string(file).unwrap_or_else(|e| fail(&format!("{}: {e}", file.display())));
        let relative = file.strip_prefix(&root).expect("shader lies under the shader root");
        let folder = relative
            .parent()
            .map(|p| p.to_string_lossy().to_string())
            .unwrap_or_default();
        let area = folder.replace('/', "_");
        let stem = file
            .file_stem()
            .expect("shader file has a stem")
            .to_string_lossy()
            .to_string();

        for variant in parse_variants(&source, file) {
            let kernel = if variant.name.is_empty() {
                stem.clone()
            } else {
                format!("{stem}_{}", variant.name)
            };
            let mut options = shaderc::CompileOptions::new().expect("shaderc options");
            options.set_target_env(shaderc::TargetEnv::Vulkan, shaderc::EnvVersion::Vulkan1_2 as u32);
            options.set_target_spirv(shaderc::SpirvVersion::V1_5);
            options.set_warnings_as_errors();
            options.set_optimization_level(shaderc::OptimizationLevel::Performance);
            if debug_info {
                options.set_generate_debug_info();
            }
            for (name, value) in &variant.defines {
                options.add_macro_definition(name, value.as_deref());
            }
            let dirs = search_dirs.clone();
            options.set_include_callback(move |requested, include_kind, requester, _depth| {
                resolve_include(requested, include_kind, requester, &dirs)
            });
            let display_name = file.display().to_string();
            match compiler.compile_into_spirv(&source, kind, &display_name, "main", Some(&options)) {
                Ok(artifact) => {
                    // Stages of one ray-tracing kernel share a stem, so all but compute
                    // shaders carry their extension in the file, name and constant.
                    let extension = file.extension().and_then(|e| e.to_str()).unwrap_or_default();
                    let suffix = if kind == shaderc::ShaderKind::Compute {
                        String::new()
                    } else {
                        format!(".{extension}")
                    };
                    let spv_path = out_dir.join(format!("{area}_{kernel}{suffix}.spv"));
                    fs::write(&spv_path, artifact.as_binary_u8()).expect("write SPIR-V");
                    let name = if folder.is_empty() {
                        format!("{kernel}{suffix}")
                    } else {
                        format!("{folder}/{kernel}{suffix}")
                    };
                    writeln!(
                        table,
                        "    EmbeddedShader {{ name: {name:?}, kernel: {kernel:?}, stage: ShaderStage::{}, spirv: include_bytes!({:?}) }},",
                        stage_rust_name(kind),
                        spv_path.display().to_string()
                    )
                    .unwrap();
                    let constant = format!("{area}_{kernel}{}", suffix.replace('.', "_"))
                        .trim_start_matches('_')
                        .to_uppercase();
                    writeln!(constants, "    /// `{name}` ({})", relative.display()).unwrap();
                    writeln!(constants, "    pub const {constant}: ShaderId = ShaderId({index});").unwrap();
                    index += 1;
                }
                Err(error) => failures.push(format!("{} (variant `{}`): {error}", relative.display(), variant.name)),
            }
        }
    }
    if !failures.is_empty() {
        fail(&format!("shader compilation failed:\n{}", failures.join("\n")));
    }

    let registry = format!(
        "// Generated by build.rs: every shader under {SHADER_ROOT}/, compiled to SPIR-V.\n\
         pub static EMBEDDED_SHADERS: &[EmbeddedShader] = &[\n{table}];\n\n\
         /// One constant per embedded shader, named `<AREA>_<KERNEL>`.\n\
         pub mod ids {{\n    use super::ShaderId;\n{constants}}}\n"
    );
    fs::write(out_dir.join("shaders.rs"), registry).expect("write shaders.rs");
}
