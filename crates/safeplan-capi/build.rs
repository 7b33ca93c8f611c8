//! Give the shared library a SONAME on Linux, so programs linked against an installed
//! `libsafeplan_c.so` record its name rather than the path it was linked from.

fn main() {
    if std::env::var("CARGO_CFG_TARGET_OS").as_deref() == Ok("linux") {
        println!("cargo:rustc-cdylib-link-arg=-Wl,-soname,libsafeplan_c.so");
    }
}
