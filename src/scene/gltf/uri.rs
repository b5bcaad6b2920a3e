//! The bytes a buffer's or image's URI names: a data URI (base64 or percent-encoded), or a
//! relative path, percent-decoded, read as a regular file inside the scene's folder unless the
//! user allows files elsewhere (a scene from the internet must not read `/etc/passwd` or
//! `../../secrets` into a texture). URIs of other schemes cannot be fetched: the parts that
//! use them are skipped with a warning.

use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;

use base64::Engine as _;

/// How an import may reach beyond the scene file.
#[derive(Clone, Debug, Default)]
pub struct ImportOptions {
    /// Read files that URIs name outside the scene's folder (absolute paths, `..`, links).
    pub allow_outside_uris: bool,
    /// Pose the nodes as the file's animations have them at this many seconds
    /// (`render --frames`); `None`: the rest pose, animations dropped with a warning.
    pub time: Option<f32>,
    /// KHR_materials_variants: render with this variant's materials (`render --variant`);
    /// `None`: each primitive's default material.
    pub variant: Option<String>,
}

pub(super) enum UriError {
    /// A scheme wavetrace does not fetch (`http:`, ...): skip what uses it.
    Unfetchable(String),
    /// The URI should be readable and is not: the file is broken.
    Unreadable(String),
}

pub(super) fn read(scene: &Path, uri: &str, options: &ImportOptions) -> Result<Vec<u8>, UriError> {
    if uri.is_empty() {
        // Valid glTF (the glTF-Validator's accessor/valid_full.gltf has one); by RFC 3986 it
        // refers to the document itself, which is JSON, not the data the buffer or image needs.
        return Err(UriError::Unfetchable(
            "an empty URI, which names the glTF file itself rather than data".into(),
        ));
    }
    if let Some(data) = uri.strip_prefix("data:") {
        return data_uri(data).map_err(UriError::Unreadable);
    }
    let relative = match scheme(uri) {
        Some("file") => uri["file:".len()..].trim_start_matches("//"),
        Some(other) => {
            return Err(UriError::Unfetchable(format!(
                "URIs of scheme {other}: cannot be fetched (wavetrace reads files and data URIs)"
            )))
        }
        None => uri,
    };
    let decoded = percent_decode(relative).map_err(UriError::Unreadable)?;
    let folder = scene
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let file = folder.join(OsStr::from_bytes(&decoded));
    let unreadable = |problem: String| UriError::Unreadable(format!("cannot read {}: {problem}", file.display()));
    let resolved = file.canonicalize().map_err(|e| unreadable(e.to_string()))?;
    if !options.allow_outside_uris {
        let folder = folder.canonicalize().map_err(|e| unreadable(e.to_string()))?;
        if !resolved.starts_with(&folder) {
            return Err(UriError::Unreadable(format!(
                "{} lies outside the scene's folder {}; pass --allow-outside-uris to read it",
                resolved.display(),
                folder.display()
            )));
        }
    }
    crate::input::read_regular_file(&resolved).map_err(unreadable)
}

/// The scheme of an absolute URI (RFC 3986: a letter, then letters, digits, `+`, `-`, `.`,
/// then a colon), or `None` for a relative reference.
fn scheme(uri: &str) -> Option<&str> {
    let (scheme, _) = uri.split_once(':')?;
    let mut chars = scheme.chars();
    let valid = chars.next().is_some_and(|c| c.is_ascii_alphabetic())
        && chars.all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c));
    valid.then_some(scheme)
}

/// `data:[<media type>][;base64],<data>`.
fn data_uri(data: &str) -> Result<Vec<u8>, String> {
    let (header, payload) = data
        .split_once(',')
        .ok_or_else(|| "data URI without a comma before its data".to_string())?;
    if header.ends_with(";base64") {
        base64::engine::general_purpose::STANDARD
            .decode(payload.trim())
            .map_err(|e| format!("data URI with bad base64: {e}"))
    } else {
        percent_decode(payload)
    }
}

fn percent_decode(text: &str) -> Result<Vec<u8>, String> {
    let bytes = text.as_bytes();
    let mut decoded = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = bytes
                .get(i + 1..i + 3)
                .filter(|h| h.iter().all(u8::is_ascii_hexdigit))
                .and_then(|h| std::str::from_utf8(h).ok())
                .and_then(|h| u8::from_str_radix(h, 16).ok())
                .ok_or_else(|| format!("bad percent-encoding at byte {i} of the URI"))?;
            decoded.push(hex);
            i += 3;
        } else {
            decoded.push(bytes[i]);
            i += 1;
        }
    }
    Ok(decoded)
}

/// A URI for a message: data URIs can be megabytes long.
pub(super) fn short(uri: &str) -> String {
    if uri.len() > 64 {
        format!("{}…", &uri[..uri.char_indices().nth(60).map_or(uri.len(), |(i, _)| i)])
    } else {
        uri.to_string()
    }
}
