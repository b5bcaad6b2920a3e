//! Hostile input, generated: a small valid scene that uses most of what the importer reads
//! (indexed and strip meshes, normals, texture coordinates, an embedded PNG texture, a punctual
//! light, a camera, a node hierarchy), and a structure-aware mutator of glTF JSON and of the
//! bytes of GLB, PNG, HDR and EXR files. Shared by the CPU fuzzer (`hostile_input.rs`) and the
//! GPU corpus (`hostile_render.rs`).

#![allow(dead_code)]

use crate::common::append_accessor;

use base64::Engine as _;
use glam::{Mat4, Quat, Vec3};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use serde_json::{json, Map, Value};

pub fn data_uri(bytes: &[u8]) -> String {
    format!(
        "data:application/octet-stream;base64,{}",
        base64::engine::general_purpose::STANDARD.encode(bytes)
    )
}

/// A `width` x `height` RGBA PNG of a checkerboard.
pub fn png(width: u32, height: u32) -> Vec<u8> {
    let mut bytes = Vec::new();
    {
        let mut encoder = png::Encoder::new(&mut bytes, width, height);
        encoder.set_color(png::ColorType::Rgba);
        encoder.set_depth(png::BitDepth::Eight);
        let mut writer = encoder.write_header().unwrap();
        let pixels: Vec<u8> = (0..width * height)
            .flat_map(|i| {
                let on = ((i % width) + (i / width)) % 2 == 0;
                if on {
                    [220, 180, 60, 255]
                } else {
                    [40, 90, 200, 255]
                }
            })
            .collect();
        writer.write_image_data(&pixels).unwrap();
    }
    bytes
}

/// A `width` x `height` lossless WebP whose texel (x, y) is `webp_texel(x, y)`.
pub fn webp(width: u32, height: u32) -> Vec<u8> {
    let pixels: Vec<u8> = (0..width * height)
        .flat_map(|i| webp_texel(i % width, i / width))
        .collect();
    let mut bytes = Vec::new();
    image::codecs::webp::WebPEncoder::new_lossless(&mut bytes)
        .encode(&pixels, width, height, image::ExtendedColorType::Rgba8)
        .unwrap();
    bytes
}

pub fn webp_texel(x: u32, y: u32) -> [u8; 4] {
    [(x * 40 + 10) as u8, (y * 30 + 20) as u8, 200, 255]
}

/// A Radiance HDR file of `width` x `height` flat (uncompressed) pixels.
pub fn hdr(width: u32, height: u32) -> Vec<u8> {
    let mut bytes = format!("#?RADIANCE\nFORMAT=32-bit_rle_rgbe\n\n-Y {height} +X {width}\n").into_bytes();
    for i in 0..width * height {
        bytes.extend_from_slice(&[128, (i % 200) as u8 + 20, 64, 129]);
    }
    bytes
}

fn push_floats(bytes: &mut Vec<u8>, values: &[f32]) -> (usize, usize) {
    let start = bytes.len();
    bytes.extend(values.iter().flat_map(|v| v.to_le_bytes()));
    (start, bytes.len() - start)
}

/// The valid scene every mutation starts from; its buffer is a data URI, so it is one file.
pub fn base_scene() -> Value {
    let mut bin = Vec::new();
    let floor_positions = [-1.0, 0.0, -1.0, 1.0, 0.0, -1.0, 1.0, 0.0, 1.0, -1.0, 0.0, 1.0];
    let floor_normals = [0.0, 1.0, 0.0].repeat(4);
    let floor_uvs = [0.0, 0.0, 1.0, 0.0, 1.0, 1.0, 0.0, 1.0];
    let lamp_positions = [-0.3, 1.0, -0.3, 0.3, 1.0, -0.3, 0.0, 1.0, 0.3, 0.3, 1.0, 0.3];
    let views_floats = [
        push_floats(&mut bin, &floor_positions),
        push_floats(&mut bin, &floor_normals),
        push_floats(&mut bin, &floor_uvs),
        push_floats(&mut bin, &lamp_positions),
    ];
    let index_start = bin.len();
    bin.extend([0u16, 2, 1, 0, 3, 2].iter().flat_map(|i| i.to_le_bytes()));
    let index_length = bin.len() - index_start;
    let image = png(4, 4);
    let image_start = bin.len().next_multiple_of(4);
    bin.resize(image_start, 0);
    bin.extend_from_slice(&image);
    let mut views: Vec<Value> = views_floats
        .iter()
        .map(|&(offset, length)| json!({"buffer": 0, "byteOffset": offset, "byteLength": length}))
        .collect();
    views.push(json!({"buffer": 0, "byteOffset": index_start, "byteLength": index_length}));
    views.push(json!({"buffer": 0, "byteOffset": image_start, "byteLength": image.len()}));
    json!({
        "asset": {"version": "2.0", "generator": "wavetrace hostile-input tests"},
        "scene": 0,
        "scenes": [{"nodes": [0, 3]}],
        "nodes": [
            {"name": "room", "children": [1, 2], "scale": [2.0, 2.0, 2.0]},
            {"name": "floor", "mesh": 0},
            {"name": "lamp", "mesh": 1, "translation": [0.0, 0.2, 0.0],
             "extensions": {"KHR_lights_punctual": {"light": 0}}},
            {"name": "eye", "camera": 0, "translation": [0.0, 1.0, 4.0]}
        ],
        "cameras": [{"type": "perspective", "perspective": {"yfov": 0.7, "znear": 0.01, "aspectRatio": 1.0}}],
        "meshes": [
            {"name": "floor", "primitives": [{"attributes": {"POSITION": 0, "NORMAL": 1, "TEXCOORD_0": 2},
                                               "indices": 4, "material": 0}]},
            {"name": "lamp", "primitives": [{"attributes": {"POSITION": 3}, "mode": 5, "material": 1}]}
        ],
        "materials": [
            {"name": "checker", "pbrMetallicRoughness": {"baseColorTexture": {"index": 0},
                                                         "metallicFactor": 0.0, "roughnessFactor": 0.6}},
            {"name": "glow", "emissiveFactor": [1.0, 0.9, 0.7], "doubleSided": true}
        ],
        "textures": [{"source": 0, "sampler": 0}],
        "samplers": [{"wrapS": 10497, "wrapT": 33071}],
        "images": [{"bufferView": 5, "mimeType": "image/png"}],
        "accessors": [
            {"bufferView": 0, "componentType": 5126, "count": 4, "type": "VEC3",
             "min": [-1.0, 0.0, -1.0], "max": [1.0, 0.0, 1.0]},
            {"bufferView": 1, "componentType": 5126, "count": 4, "type": "VEC3"},
            {"bufferView": 2, "componentType": 5126, "count": 4, "type": "VEC2"},
            {"bufferView": 3, "componentType": 5126, "count": 4, "type": "VEC3",
             "min": [-0.3, 1.0, -0.3], "max": [0.3, 1.0, 0.3]},
            {"bufferView": 4, "componentType": 5123, "count": 6, "type": "SCALAR"}
        ],
        "bufferViews": views,
        "buffers": [{"byteLength": bin.len(), "uri": data_uri(&bin)}],
        "extensionsUsed": ["KHR_lights_punctual"],
        "extensions": {"KHR_lights_punctual": {"lights": [
            {"type": "spot", "intensity": 2.0, "spot": {"outerConeAngle": 0.6}}
        ]}}
    })
}

/// `base_scene` whose checker material textures its layers (KHR_materials_specular, the
/// transmission, KHR_materials_clearcoat's three textures, read from JSON the glTF crate does
/// not check) and whose floor has a KHR_materials_variants variant: seeds for the fuzzer.
pub fn layered_scene() -> Value {
    let mut scene = base_scene();
    scene["materials"][0]["extensions"] = json!({
        "KHR_materials_specular": {"specularTexture": {"index": 0, "texCoord": 0},
                                   "specularColorTexture": {"index": 0}},
        "KHR_materials_transmission": {"transmissionFactor": 0.5, "transmissionTexture": {"index": 0}},
        "KHR_materials_clearcoat": {"clearcoatFactor": 1.0, "clearcoatTexture": {"index": 0},
                                    "clearcoatRoughnessTexture": {"index": 0, "texCoord": 0},
                                    "clearcoatNormalTexture": {"index": 0, "scale": 0.5}}});
    scene["extensions"] = json!({"KHR_materials_variants": {"variants": [{"name": "lit"}]}});
    scene["meshes"][0]["primitives"][0]["extensions"] =
        json!({"KHR_materials_variants": {"mappings": [{"material": 1, "variants": [0]}]}});
    scene["extensionsUsed"] = json!([
        "KHR_lights_punctual",
        "KHR_materials_specular",
        "KHR_materials_transmission",
        "KHR_materials_clearcoat",
        "KHR_materials_variants"
    ]);
    scene
}

/// `base_scene` with three animations (`render --frames`, tests/animation.rs): the lamp slides along x (LINEAR,
/// keys at 0, 1, 2 s), the room (the lamp's parent, scale 2) turns a quarter about y at 1 s
/// (STEP), and the camera rises by 1 (CUBICSPLINE, zero tangents: smoothstep) over 0..1 s.
pub fn animated_scene(times: [f32; 3]) -> Value {
    let mut document = base_scene();
    let mut offsets = Vec::new();
    let quarter = glam::Quat::from_rotation_y(std::f32::consts::FRAC_PI_2).to_array();
    let blocks: Vec<Vec<f32>> = vec![
        times.to_vec(),
        vec![0.0, 0.2, 0.0, 0.5, 0.2, 0.0, 1.0, 0.2, 0.0],
        [[0.0, 0.0, 0.0, 1.0], quarter, quarter].concat(),
        // (in-tangent, value, out-tangent) for keys 0 and 1 s.
        vec![
            0.0, 0.0, 0.0, 0.0, 1.0, 4.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 2.0, 4.0, 0.0, 0.0, 0.0,
        ],
        times[..2].to_vec(),
    ];
    let mut length = 0;
    mutate_buffer(&mut document, |bin| {
        for block in &blocks {
            bin.resize(bin.len().next_multiple_of(4), 0);
            offsets.push(bin.len());
            bin.extend(block.iter().flat_map(|v| v.to_le_bytes()));
        }
        length = bin.len();
    });
    document["buffers"][0]["byteLength"] = json!(length);
    let first_view = document["bufferViews"].as_array().unwrap().len();
    let first_accessor = document["accessors"].as_array().unwrap().len();
    for (block, offset) in blocks.iter().zip(&offsets) {
        document["bufferViews"]
            .as_array_mut()
            .unwrap()
            .push(json!({"buffer": 0, "byteOffset": offset, "byteLength": 4 * block.len()}));
    }
    let accessor = |k: usize, count: usize, kind: &str| json!({"bufferView": first_view + k, "componentType": 5126, "count": count, "type": kind});
    let accessors = document["accessors"].as_array_mut().unwrap();
    accessors.push(
        json!({"bufferView": first_view, "componentType": 5126, "count": 3, "type": "SCALAR",
                          "min": [times[0]], "max": [times[2]]}),
    );
    accessors.push(accessor(1, 3, "VEC3"));
    accessors.push(accessor(2, 3, "VEC4"));
    accessors.push(accessor(3, 6, "VEC3"));
    accessors.push(
        json!({"bufferView": first_view + 4, "componentType": 5126, "count": 2, "type": "SCALAR",
                          "min": [times[0]], "max": [times[1]]}),
    );
    let a = first_accessor;
    document["animations"] = json!([
        {"name": "slide", "samplers": [{"input": a, "output": a + 1}],
         "channels": [{"sampler": 0, "target": {"node": 2, "path": "translation"}}]},
        {"name": "turn", "samplers": [{"input": a, "output": a + 2, "interpolation": "STEP"}],
         "channels": [{"sampler": 0, "target": {"node": 0, "path": "rotation"}}]},
        {"name": "rise", "samplers": [{"input": a + 4, "output": a + 3, "interpolation": "CUBICSPLINE"}],
         "channels": [{"sampler": 0, "target": {"node": 3, "path": "translation"}}]}
    ]);
    document
}

/// The scene as a GLB: its buffer moved into the binary chunk.
pub fn to_glb(document: &Value) -> Vec<u8> {
    let mut document = document.clone();
    let uri = document["buffers"][0]["uri"].as_str().unwrap().to_string();
    let bin = base64::engine::general_purpose::STANDARD
        .decode(uri.split_once(',').unwrap().1)
        .unwrap();
    document["buffers"][0].as_object_mut().unwrap().remove("uri");
    let mut json = serde_json::to_vec(&document).unwrap();
    json.resize(json.len().next_multiple_of(4), b' ');
    let mut bin = bin;
    bin.resize(bin.len().next_multiple_of(4), 0);
    let total = 12 + 8 + json.len() + 8 + bin.len();
    let mut glb = Vec::with_capacity(total);
    glb.extend_from_slice(b"glTF");
    glb.extend_from_slice(&2u32.to_le_bytes());
    glb.extend_from_slice(&(total as u32).to_le_bytes());
    glb.extend_from_slice(&(json.len() as u32).to_le_bytes());
    glb.extend_from_slice(b"JSON");
    glb.extend_from_slice(&json);
    glb.extend_from_slice(&(bin.len() as u32).to_le_bytes());
    glb.extend_from_slice(b"BIN\0");
    glb.extend_from_slice(&bin);
    glb
}

/// Numbers that break arithmetic: zero, negatives, powers of two at the integer widths' edges,
/// values past them, NaN-producing floats in JSON (1e39 overflows f32), fractions.
const HOSTILE_NUMBERS: [&str; 16] = [
    "0",
    "-1",
    "1",
    "3",
    "255",
    "65536",
    "2147483647",
    "2147483648",
    "4294967295",
    "4294967296",
    "9007199254740993",
    "18446744073709551615",
    "18446744073709551616",
    "1e39",
    "-1e39",
    "0.5",
];

/// Mutations a fuzzer applies: structure-aware for JSON (values replaced by hostile numbers,
/// other types, removed, duplicated; indices pointed elsewhere; arrays emptied or grown), and
/// byte-level for binary formats (flips, overwritten words, truncation, insertion, splices).
pub struct Mutator {
    pub rng: SmallRng,
}

impl Mutator {
    pub fn new(seed: u64) -> Self {
        Self {
            rng: SmallRng::seed_from_u64(seed),
        }
    }

    /// Applies 1 to 4 mutations to the JSON tree.
    pub fn mutate_json(&mut self, document: &mut Value) {
        let count = self.rng.random_range(1..=4);
        for _ in 0..count {
            let mut paths = Vec::new();
            collect_paths(document, &mut Vec::new(), &mut paths);
            if paths.is_empty() {
                return;
            }
            let path = paths[self.rng.random_range(0..paths.len())].clone();
            let Some(target) = pointer_mut(document, &path) else {
                continue;
            };
            self.mutate_value(target);
        }
    }

    fn hostile_number(&mut self) -> Value {
        let text = HOSTILE_NUMBERS[self.rng.random_range(0..HOSTILE_NUMBERS.len())];
        serde_json::from_str(text).unwrap_or_else(|_| json!(f64::MAX))
    }

    fn mutate_value(&mut self, value: &mut Value) {
        match self.rng.random_range(0..10) {
            0..=3 => *value = self.hostile_number(),
            4 => *value = Value::Null,
            5 => *value = json!("hostile"),
            6 => {
                if let Value::Array(items) = value {
                    if let Some(item) = items.first().cloned() {
                        let copies = self.rng.random_range(1..=64);
                        items.extend(std::iter::repeat_n(item, copies));
                    }
                } else {
                    *value = json!([]);
                }
            }
            7 => {
                if let Value::Array(items) = value {
                    items.clear();
                } else if let Value::Object(map) = value {
                    if let Some(key) = map.keys().nth(self.rng.random_range(0..map.len().max(1))).cloned() {
                        map.remove(&key);
                    }
                }
            }
            8 => {
                if let Value::Number(n) = value {
                    let delta = self.rng.random_range(-3i64..=3);
                    *value = json!(n.as_i64().unwrap_or(0).saturating_add(delta));
                } else {
                    *value = json!({});
                }
            }
            _ => {
                // Deep nesting where the schema expects a value.
                let mut nested = json!(0);
                for _ in 0..self.rng.random_range(1..200) {
                    nested = json!([nested]);
                }
                *value = nested;
            }
        }
    }

    /// Applies 1 to 8 byte-level mutations; `protect` leading bytes are left alone half the
    /// time (a format's magic number, so that the decoder gets past it).
    pub fn mutate_bytes(&mut self, bytes: &mut Vec<u8>, protect: usize) {
        let count = self.rng.random_range(1..=8);
        for _ in 0..count {
            if bytes.is_empty() {
                bytes.push(0);
            }
            let start = if self.rng.random_bool(0.5) {
                protect.min(bytes.len() - 1)
            } else {
                0
            };
            let at = self.rng.random_range(start..bytes.len());
            match self.rng.random_range(0..7) {
                0 => bytes[at] ^= 1 << self.rng.random_range(0..8),
                1 => bytes[at] = [0, 0xFF, 0x7F, 0x80][self.rng.random_range(0..4)],
                2 => {
                    let word: u32 =
                        [0, 1, u32::MAX, 0x7FFF_FFFF, 0x8000_0000, 1 << 16, 100_000][self.rng.random_range(0..7)];
                    for (i, b) in word.to_le_bytes().iter().enumerate() {
                        if let Some(slot) = bytes.get_mut(at + i) {
                            *slot = *b;
                        }
                    }
                }
                3 => bytes.truncate(at.max(1)),
                4 => {
                    let insert: Vec<u8> = (0..self.rng.random_range(1..64)).map(|_| self.rng.random()).collect();
                    bytes.splice(at..at, insert);
                }
                5 => {
                    // A splice of the file with itself: repeated headers and chunks.
                    let end = self.rng.random_range(at..bytes.len());
                    let piece = bytes[at..end].to_vec();
                    let to = self.rng.random_range(0..bytes.len());
                    bytes.splice(to..to, piece);
                }
                _ => {
                    let end = self.rng.random_range(at..bytes.len());
                    bytes.drain(at..end);
                }
            }
        }
    }
}

fn collect_paths(value: &Value, path: &mut Vec<String>, out: &mut Vec<Vec<String>>) {
    if !path.is_empty() {
        out.push(path.clone());
    }
    match value {
        Value::Object(map) => {
            for (key, child) in map {
                // A data URI is bytes, mutated at the byte level elsewhere.
                if key == "uri" {
                    continue;
                }
                path.push(key.clone());
                collect_paths(child, path, out);
                path.pop();
            }
        }
        Value::Array(items) => {
            for (i, child) in items.iter().enumerate().take(32) {
                path.push(i.to_string());
                collect_paths(child, path, out);
                path.pop();
            }
        }
        _ => {}
    }
}

fn pointer_mut<'a>(value: &'a mut Value, path: &[String]) -> Option<&'a mut Value> {
    let mut current = value;
    for step in path {
        current = match current {
            Value::Object(map) => map.get_mut(step)?,
            Value::Array(items) => items.get_mut(step.parse::<usize>().ok()?)?,
            _ => return None,
        };
    }
    Some(current)
}

/// Replaces the buffer's bytes (a data URI) by `mutate`'s version of them.
pub fn mutate_buffer(document: &mut Value, mutate: impl FnOnce(&mut Vec<u8>)) {
    let Some(uri) = document["buffers"][0]["uri"].as_str() else {
        return;
    };
    let Some((_, payload)) = uri.split_once(',') else {
        return;
    };
    let Ok(mut bytes) = base64::engine::general_purpose::STANDARD.decode(payload) else {
        return;
    };
    mutate(&mut bytes);
    document["buffers"][0]["uri"] = json!(data_uri(&bytes));
}

pub fn object(value: &mut Value) -> &mut Map<String, Value> {
    value.as_object_mut().unwrap()
}

/// glTF's component type of 32-bit floats.
pub const FLOAT: u32 = 5126;
/// glTF's component type of unsigned bytes.
pub const UNSIGNED_BYTE: u32 = 5121;

/// Little-endian bytes of `values`, as a buffer holds them.
pub fn floats(values: &[f32]) -> Vec<u8> {
    values.iter().flat_map(|v| v.to_le_bytes()).collect()
}

/// The hip joint's turn about y in `skinned_floor`.
pub const HIP_ROTATION: f32 = std::f32::consts::FRAC_PI_2;

/// The hostile tests' base scene with its floor (four vertices, under a room scaled by 2)
/// skinned to two joints under the room: `hip` (turned about y, raised) and its child
/// `knee`. The floor's own node is moved far away, which a skinned mesh must ignore.
/// Vertex 0 follows the hip, 1 the knee, 2 both halves, 3 weights that sum to a half and
/// name a joint the skin lacks with weight 0.
pub fn skinned_floor() -> Value {
    let mut document = base_scene();
    document["nodes"][0]["children"] = json!([1, 2, 4]);
    let hip = Quat::from_rotation_y(HIP_ROTATION).to_array();
    document["nodes"].as_array_mut().unwrap().extend([
        json!({"name": "hip", "translation": [0.0, 0.5, 0.0], "rotation": hip, "children": [5]}),
        json!({"name": "knee", "translation": [1.0, 0.0, 0.0]}),
    ]);
    document["nodes"][1]["skin"] = json!(0);
    document["nodes"][1]["translation"] = json!([5.0, 5.0, 5.0]);
    let inverse_binds = [
        Mat4::from_translation(Vec3::new(0.0, -1.0, 0.0)).to_cols_array(),
        Mat4::IDENTITY.to_cols_array(),
    ]
    .concat();
    let inverse_binds = append_accessor(&mut document, &floats(&inverse_binds), FLOAT, 2, "MAT4", false);
    document["skins"] = json!([{"joints": [4, 5], "inverseBindMatrices": inverse_binds}]);
    let joints: [u8; 16] = [0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 1, 7, 0];
    let joints = append_accessor(&mut document, &joints, UNSIGNED_BYTE, 4, "VEC4", false);
    let weights = [
        1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.5, 0.5, 0.0, 0.0, 0.25, 0.25, 0.0, 0.0,
    ];
    let weights = append_accessor(&mut document, &floats(&weights), FLOAT, 4, "VEC4", false);
    let attributes = &mut document["meshes"][0]["primitives"][0]["attributes"];
    attributes["JOINTS_0"] = json!(joints);
    attributes["WEIGHTS_0"] = json!(weights);
    document
}

/// Gives the base scene's floor two morph targets: the first raises vertex 0 by 1, the
/// second moves every vertex and tilts every normal by +x (and displaces TEXCOORD_0, which
/// wavetrace does not morph). `mesh_weights`: the mesh's default weights.
pub fn add_floor_morph_targets(document: &mut Value, mesh_weights: [f32; 2]) {
    let raise = floats(&[[0.0, 1.0, 0.0], [0.0; 3], [0.0; 3], [0.0; 3]].concat());
    let raise = append_accessor(document, &raise, FLOAT, 4, "VEC3", false);
    let shift = floats(&[1.0, 0.0, 0.0].repeat(4));
    let shift = append_accessor(document, &shift, FLOAT, 4, "VEC3", false);
    let uv_shift = append_accessor(document, &floats(&[0.5; 8]), FLOAT, 4, "VEC2", false);
    document["meshes"][0]["primitives"][0]["targets"] = json!([
        {"POSITION": raise},
        {"POSITION": shift, "NORMAL": shift, "TEXCOORD_0": uv_shift}
    ]);
    document["meshes"][0]["weights"] = json!(mesh_weights);
}

/// An element of N bytes, the shape meshoptimizer's vertex codec takes.
#[derive(Clone, Copy)]
#[repr(C)]
struct Element<const N: usize>([u8; N]);

fn encode_attributes<const N: usize>(bytes: &[u8]) -> Vec<u8> {
    let elements: Vec<Element<N>> = bytes
        .chunks_exact(N)
        .map(|c| Element(c.try_into().expect("whole elements")))
        .collect();
    meshopt::encode_vertex_buffer(&elements).unwrap()
}

fn cornell_box_document() -> (Value, Vec<u8>) {
    let folder = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/scenes/cornell-box");
    let document: Value = serde_json::from_slice(&std::fs::read(folder.join("cornell-box.gltf")).unwrap()).unwrap();
    let bin = std::fs::read(folder.join("cornell-box.bin")).unwrap();
    (document, bin)
}

/// The Cornell box as gltfpack lays out EXT_meshopt_compression: each view's data compressed by
/// meshoptimizer's own encoder (positions as ATTRIBUTES, indices as TRIANGLES) into buffer 0,
/// a data URI, and the views themselves in buffer 1, a placeholder tagged as the fallback; the
/// extension required.
pub fn meshopt_cornell_box() -> Value {
    let (mut document, bin) = cornell_box_document();
    let accessors = document["accessors"].as_array().unwrap().clone();
    let mut streams = Vec::new();
    let views = document["bufferViews"].as_array_mut().unwrap();
    for (index, view) in views.iter_mut().enumerate() {
        let offset = view["byteOffset"].as_u64().unwrap_or(0) as usize;
        let length = view["byteLength"].as_u64().unwrap() as usize;
        let data = &bin[offset..offset + length];
        let accessor = accessors
            .iter()
            .find(|a| a["bufferView"].as_u64() == Some(index as u64))
            .expect("each view is an accessor's");
        let (mode, stride, stream) = if accessor["type"] == "SCALAR" {
            let stride = if accessor["componentType"] == 5125 { 4 } else { 2 };
            let indices: Vec<u32> = data
                .chunks_exact(stride)
                .map(|c| {
                    if stride == 4 {
                        u32::from_le_bytes(c.try_into().unwrap())
                    } else {
                        u32::from(u16::from_le_bytes(c.try_into().unwrap()))
                    }
                })
                .collect();
            let vertices = indices.iter().max().map_or(0, |&m| m as usize + 1);
            (
                "TRIANGLES",
                stride,
                meshopt::encode_index_buffer(&indices, vertices).unwrap(),
            )
        } else {
            assert_eq!(accessor["type"], "VEC3");
            ("ATTRIBUTES", 12, encode_attributes::<12>(data))
        };
        while streams.len() % 4 != 0 {
            streams.push(0);
        }
        view["buffer"] = json!(1);
        view["extensions"] = json!({"EXT_meshopt_compression": {
            "buffer": 0, "byteOffset": streams.len(), "byteLength": stream.len(),
            "byteStride": stride, "count": length / stride, "mode": mode}});
        streams.extend_from_slice(&stream);
    }
    document["buffers"] = json!([
        {"byteLength": streams.len(), "uri": data_uri(&streams)},
        {"byteLength": bin.len(), "extensions": {"EXT_meshopt_compression": {"fallback": true}}}
    ]);
    for key in ["extensionsUsed", "extensionsRequired"] {
        let list = document.as_object_mut().unwrap().entry(key).or_insert(json!([]));
        list.as_array_mut().unwrap().push(json!("EXT_meshopt_compression"));
    }
    document
}

/// gltfpack's KHR_meshopt_compression of an animated box (tests/scenes/gltfpack), its streams
/// inlined as buffer 0, which `mutate_buffer` mutates: version 1 attribute streams to fuzz.
pub fn khr_meshopt_box() -> Value {
    let folder = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/scenes/gltfpack");
    let mut document: Value =
        serde_json::from_slice(&std::fs::read(folder.join("animated-box-khr.gltf")).unwrap()).unwrap();
    let streams = std::fs::read(folder.join("animated-box-khr.bin")).unwrap();
    document["buffers"][0]["uri"] = json!(data_uri(&streams));
    document
}
