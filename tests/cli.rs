//! The command line: `wavetrace info` on this machine, and the errors a user sees when
//! Vulkan is missing.

use std::process::Command;

fn wavetrace() -> Command {
    Command::new(env!("CARGO_BIN_EXE_wavetrace"))
}

#[test]
fn info_json_lists_devices_with_their_backends() {
    let output = wavetrace().args(["info", "--json"]).output().unwrap();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let report: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let devices = report["devices"].as_array().unwrap();
    assert!(!devices.is_empty());
    for device in devices {
        let backends = device["trace_backends"].as_array().unwrap();
        assert_eq!(
            device["capabilities"]["ray_query"].as_bool().unwrap(),
            backends.contains(&"query".into())
        );
        assert!(device["capabilities"]["subgroup_size"].as_u64().unwrap() >= 1);
        // Lavapipe (Mesa 24.1+) has both backends; the tests rely on that.
        if device["name"].as_str().unwrap().starts_with("llvmpipe") {
            assert_eq!(
                backends.len(),
                2,
                "lavapipe should offer ray query and pipeline: {device}"
            );
            assert_eq!(device["usable"], true);
        }
    }
}

#[test]
fn info_text_names_backends() {
    let output = wavetrace().arg("info").output().unwrap();
    assert!(output.status.success());
    let text = String::from_utf8(output.stdout).unwrap();
    assert!(text.contains("trace backends: ray query"), "{text}");
    assert!(text.contains("subgroup size"), "{text}");
}

#[test]
fn a_missing_loader_is_a_clear_error() {
    let output = wavetrace()
        .arg("info")
        .env("WAVETRACE_VULKAN_LOADER", "/nonexistent/libvulkan.so.1")
        .output()
        .unwrap();
    assert!(!output.status.success());
    let text = String::from_utf8(output.stderr).unwrap();
    assert!(text.contains("libvulkan1") && !text.contains("panicked"), "{text}");
}

#[test]
fn no_driver_is_a_clear_error() {
    let output = wavetrace()
        .arg("info")
        .env("VK_DRIVER_FILES", "/nonexistent/icd.json")
        .env("VK_ICD_FILENAMES", "/nonexistent/icd.json")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(!stderr.contains("panicked"), "{stderr}");
    // Loaders either refuse the instance (an error naming the cure) or list no device.
    assert!(
        (!output.status.success() && stderr.contains("no Vulkan device")) || stdout.contains("0 device(s)"),
        "stdout: {stdout}\nstderr: {stderr}"
    );
}
