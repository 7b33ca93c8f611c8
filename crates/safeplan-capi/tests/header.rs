//! The checked-in `include/safeplan.h` is what cbindgen generates from the crate today: a
//! C API change without a new header fails here. `SAFEPLAN_BLESS=1` writes the new header.

use std::path::Path;

#[test]
fn the_checked_in_header_is_current() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    let config = cbindgen::Config::from_file(dir.join("cbindgen.toml")).expect("cbindgen.toml");
    let mut generated = Vec::new();
    cbindgen::Builder::new()
        .with_crate(dir)
        .with_config(config)
        .generate()
        .expect("cbindgen reads the crate")
        .write(&mut generated);
    let generated = String::from_utf8(generated).expect("UTF-8");
    let path = dir.join("include/safeplan.h");
    if std::env::var_os("SAFEPLAN_BLESS").is_some() {
        std::fs::write(&path, &generated).expect("write the header");
    }
    let checked_in = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        checked_in == generated,
        "include/safeplan.h is stale: run `SAFEPLAN_BLESS=1 cargo test -p safeplan-capi --test header` and commit it"
    );
}
