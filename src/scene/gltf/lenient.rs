//! Valid glTF that the glTF crate's strict model refuses, made acceptable before it is
//! deserialised: what a still renderer has no use for (animations outside `render --frames`,
//! `extras`) is dropped, a scene without `nodes` gets an empty list, and lights of unknown
//! types and textures without a readable source are removed with the references to them
//! (the arrays renumbered). Each kind of thing dropped is one warning.

use serde_json::{Map, Value};

/// The light types of KHR_lights_punctual that wavetrace renders.
const LIGHT_TYPES: [&str; 3] = ["point", "spot", "directional"];

/// `animated`: animations are kept, for a render at a time of them.
pub(super) fn relax(root: &mut Value, animated: bool, warnings: &mut Vec<String>) -> Result<(), String> {
    let Value::Object(root) = root else {
        return Err("the top level of the JSON must be an object (the glTF root)".into());
    };
    strip_extras(root);
    drop_animation(root, animated, warnings);
    if let Some(Value::Array(scenes)) = root.get_mut("scenes") {
        for scene in scenes.iter_mut().filter_map(Value::as_object_mut) {
            scene.entry("nodes").or_insert_with(|| Value::Array(Vec::new()));
        }
    }
    drop_unknown_lights(root, warnings);
    complete_images(root, warnings);
    prefer_webp_sources(root);
    drop_textures_without_source(root, warnings);
    Ok(())
}

/// `extras` is application data of any JSON type; wavetrace reads none of it.
fn strip_extras(object: &mut Map<String, Value>) {
    object.remove("extras");
    for value in object.values_mut() {
        strip_extras_in(value);
    }
}

fn strip_extras_in(value: &mut Value) {
    match value {
        Value::Object(object) => strip_extras(object),
        Value::Array(items) => items.iter_mut().for_each(strip_extras_in),
        _ => {}
    }
}

/// Whether `key` has a value: serde reads `null` as absent, so it counts as absent here too.
fn present(object: &Map<String, Value>, key: &str) -> bool {
    object.get(key).is_some_and(|v| !v.is_null())
}

fn array_len(root: &Map<String, Value>, key: &str) -> usize {
    root.get(key).and_then(Value::as_array).map_or(0, Vec::len)
}

/// Channels whose target has no `node` (valid: an extension such as KHR_animation_pointer
/// names what they move) animate nothing wavetrace poses; the glTF crate requires the node.
fn drop_channels_without_node(root: &mut Map<String, Value>, warnings: &mut Vec<String>) {
    let mut dropped = 0;
    for animation in root
        .get_mut("animations")
        .and_then(Value::as_array_mut)
        .into_iter()
        .flatten()
        .filter_map(Value::as_object_mut)
    {
        if let Some(Value::Array(channels)) = animation.get_mut("channels") {
            let before = channels.len();
            channels.retain(|c| {
                c.get("target")
                    .and_then(Value::as_object)
                    .is_some_and(|t| present(t, "node"))
            });
            dropped += before - channels.len();
        }
    }
    if dropped > 0 {
        warnings.push(format!("{dropped} animation channel(s) without a target node ignored"));
    }
}

/// The rest pose unless `animated`: animations are dropped. Skins and morph targets are kept
/// (`deform` applies them), but for the displacements of morph targets that wavetrace does
/// not apply: those of texture coordinates and colours, which the glTF crate would drop
/// without a word.
fn drop_animation(root: &mut Map<String, Value>, animated: bool, warnings: &mut Vec<String>) {
    let count = array_len(root, "animations");
    if !animated && root.remove("animations").is_some() && count > 0 {
        warnings.push(format!(
            "{count} animation(s) ignored: wavetrace renders the rest pose (render --frames poses animations)"
        ));
    }
    if animated {
        drop_channels_without_node(root, warnings);
    }
    let mut dropped = std::collections::BTreeSet::new();
    let targets = root
        .get_mut("meshes")
        .and_then(Value::as_array_mut)
        .into_iter()
        .flatten()
        .filter_map(|mesh| mesh.get_mut("primitives").and_then(Value::as_array_mut))
        .flatten()
        .filter_map(|primitive| primitive.get_mut("targets").and_then(Value::as_array_mut))
        .flatten()
        .filter_map(Value::as_object_mut);
    for target in targets {
        target.retain(|semantic, _| {
            let applied = MORPHED_ATTRIBUTES.contains(&semantic.as_str());
            if !applied {
                dropped.insert(semantic.clone());
            }
            applied
        });
    }
    if !dropped.is_empty() {
        let names: Vec<String> = dropped.into_iter().collect();
        warnings.push(format!(
            "morph target displacements of {} ignored: wavetrace morphs POSITION, NORMAL and TANGENT",
            names.join(", ")
        ));
    }
}

/// The attributes whose morph target displacements are applied.
const MORPHED_ATTRIBUTES: [&str; 3] = ["POSITION", "NORMAL", "TANGENT"];

/// Removes the elements of `items` for which `keep` is false; returns the new index of each
/// old one (`None` for a removed one).
fn compact(items: &mut Vec<Value>, keep: impl Fn(&Value) -> bool) -> Vec<Option<u64>> {
    let mut renumbered = Vec::with_capacity(items.len());
    let mut next = 0;
    for item in items.iter() {
        if keep(item) {
            renumbered.push(Some(next));
            next += 1;
        } else {
            renumbered.push(None);
        }
    }
    items.retain(|item| keep(item));
    renumbered
}

fn name_of(item: &Value, kind: &str, index: usize) -> String {
    match item.get("name").and_then(Value::as_str) {
        Some(name) => format!("{kind} {index} ({name})"),
        None => format!("{kind} {index}"),
    }
}

fn drop_unknown_lights(root: &mut Map<String, Value>, warnings: &mut Vec<String>) {
    let Some(lights) = root
        .get_mut("extensions")
        .and_then(|e| e.get_mut("KHR_lights_punctual"))
        .and_then(|e| e.get_mut("lights"))
        .and_then(Value::as_array_mut)
    else {
        return;
    };
    let known = |light: &Value| {
        light
            .get("type")
            .and_then(Value::as_str)
            .is_some_and(|kind| LIGHT_TYPES.contains(&kind))
    };
    for (index, light) in lights.iter().enumerate().filter(|(_, light)| !known(light)) {
        let kind = light.get("type").map_or_else(|| "none".to_string(), Value::to_string);
        warnings.push(format!(
            "KHR_lights_punctual {}: light type {kind} is not one wavetrace renders (point, spot, directional); skipped",
            name_of(light, "light", index)
        ));
    }
    let renumbered = compact(lights, known);
    if renumbered.iter().all(Option::is_some) {
        return;
    }
    for node in root
        .get_mut("nodes")
        .and_then(Value::as_array_mut)
        .into_iter()
        .flatten()
    {
        let Some(extensions) = node.get_mut("extensions").and_then(Value::as_object_mut) else {
            continue;
        };
        let old = extensions
            .get("KHR_lights_punctual")
            .and_then(|l| l.get("light"))
            .and_then(Value::as_u64);
        // An index out of range is left for validation to name.
        match old.and_then(|old| renumbered.get(old as usize)) {
            Some(Some(new)) => extensions["KHR_lights_punctual"]["light"] = Value::from(*new),
            Some(None) => {
                extensions.remove("KHR_lights_punctual");
            }
            None => {}
        }
    }
}

/// An image in a buffer view needs a MIME type (wavetrace reads the format from the bytes, so
/// any will do); one with neither a URI nor a buffer view gets an empty data URI, which fails
/// to decode where a material uses it (magenta, warned).
fn complete_images(root: &mut Map<String, Value>, warnings: &mut Vec<String>) {
    let Some(images) = root.get_mut("images").and_then(Value::as_array_mut) else {
        return;
    };
    for (index, image) in images.iter_mut().enumerate() {
        let label = name_of(image, "image", index);
        let Some(image) = image.as_object_mut() else {
            continue;
        };
        if present(image, "bufferView") {
            if !present(image, "mimeType") {
                image.insert("mimeType".into(), Value::from("application/octet-stream"));
            }
        } else if !present(image, "uri") {
            warnings.push(format!("{label} has neither a uri nor a bufferView: it has no pixels"));
            image.insert("uri".into(), Value::from("data:,"));
        }
    }
}

/// EXT_texture_webp names a WebP image for a texture, beside (or instead of) a `source` other
/// readers fall back to; the extension says a reader that decodes WebP takes it.
fn prefer_webp_sources(root: &mut Map<String, Value>) {
    for texture in root
        .get_mut("textures")
        .and_then(Value::as_array_mut)
        .into_iter()
        .flatten()
        .filter_map(Value::as_object_mut)
    {
        let webp = texture
            .get("extensions")
            .and_then(|e| e.get(super::WEBP))
            .and_then(|w| w.get("source"))
            .filter(|s| s.is_u64())
            .cloned();
        if let Some(source) = webp {
            texture.insert("source".into(), source);
        }
    }
}

/// Textures without a source are dropped; the ones a material uses are named in a warning
/// (one no material uses changes nothing that renders).
fn drop_textures_without_source(root: &mut Map<String, Value>, warnings: &mut Vec<String>) {
    let mut used = Vec::new();
    for material in root.get("materials").and_then(Value::as_array).into_iter().flatten() {
        texture_indices(material, &mut used);
    }
    let Some(textures) = root.get_mut("textures").and_then(Value::as_array_mut) else {
        return;
    };
    // A source out of range is left for validation to name; only an absent one is dropped.
    let readable = |texture: &Value| texture.as_object().is_some_and(|t| present(t, "source"));
    let unread_in_use = textures
        .iter()
        .enumerate()
        .filter(|&(index, texture)| !readable(texture) && used.contains(&(index as u64)));
    for (index, texture) in unread_in_use {
        let extensions: Vec<&String> = texture
            .get("extensions")
            .and_then(Value::as_object)
            .map(|e| e.keys().collect())
            .unwrap_or_default();
        let hint = if extensions.is_empty() {
            String::new()
        } else {
            format!(" (its image is in {extensions:?}, which wavetrace cannot read)")
        };
        warnings.push(format!(
            "{} has no source image{hint}; materials that use it render without it",
            name_of(texture, "texture", index)
        ));
    }
    let renumbered = compact(textures, readable);
    if renumbered.iter().all(Option::is_some) {
        return;
    }
    for material in root
        .get_mut("materials")
        .and_then(Value::as_array_mut)
        .into_iter()
        .flatten()
    {
        renumber_texture_infos(material, &renumbered);
    }
}

/// The textures a material's textureInfos name (see `renumber_texture_infos`).
fn texture_indices(value: &Value, indices: &mut Vec<u64>) {
    match value {
        Value::Object(object) => {
            for child in object.values() {
                match child.get("index").and_then(Value::as_u64) {
                    Some(index) => indices.push(index),
                    None => texture_indices(child, indices),
                }
            }
        }
        Value::Array(items) => items.iter().for_each(|item| texture_indices(item, indices)),
        _ => {}
    }
}

/// Every object inside a material with a numeric `index` is a textureInfo (the core's and
/// every extension's): renumber it, or remove it where its texture was removed.
fn renumber_texture_infos(value: &mut Value, renumbered: &[Option<u64>]) {
    let Value::Object(object) = value else {
        if let Value::Array(items) = value {
            items
                .iter_mut()
                .for_each(|item| renumber_texture_infos(item, renumbered));
        }
        return;
    };
    let mut removed = Vec::new();
    for (key, child) in object.iter_mut() {
        if let Some(old) = child.get("index").and_then(Value::as_u64) {
            match renumbered.get(old as usize) {
                Some(Some(new)) => child["index"] = Value::from(*new),
                Some(None) => removed.push(key.clone()),
                None => {}
            }
        } else {
            renumber_texture_infos(child, renumbered);
        }
    }
    for key in removed {
        object.remove(&key);
    }
}
