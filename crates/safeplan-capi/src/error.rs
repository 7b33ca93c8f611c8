//! Errors across the boundary: one Rust enum with a variant per failure a caller can act
//! on, turned into an opaque `safeplan_error` with a stable code and a sentence; and the
//! guard every entry point runs under, which turns a panic into such an error.

use std::ffi::{CStr, CString, c_char};
use std::panic::{AssertUnwindSafe, catch_unwind};

use safeplan_pddl::{Diagnostic, FileKind, LineIndex};

/// What went wrong, for C callers. [`Error::code`] is the stable code.
#[derive(Debug, thiserror::Error)]
pub(crate) enum Error {
    /// A pointer argument was NULL.
    #[error("`{0}` is NULL: pass a valid pointer")]
    Null(&'static str),
    /// A text argument is not UTF-8.
    #[error("`{0}` is not UTF-8 text: PDDL and plans are read as UTF-8")]
    NotUtf8(&'static str),
    /// A domain, problem, plan or action text has an error: the first diagnostic.
    #[error("{message}")]
    Diagnostic {
        /// The diagnostic's code (`undefined-predicate`, `unexpected-token`, ...).
        code: &'static str,
        /// `file:line:col: message (help)`.
        message: String,
    },
    /// The task cannot be compiled (a feature the validator does not support).
    #[error("{0}")]
    Unsupported(String),
    /// An action text given to a monitor is not one step.
    #[error("`{0}` is not one step: write one action as `(name arg ...)`")]
    NotOneStep(String),
    /// `safeplan_timed_monitor_end` for an action that is not running.
    #[error("`{0}` is not running: start it before ending it")]
    NotRunning(String),
    /// The monitor refused an event for a reason other than the plan's (time going back).
    #[error("{0}")]
    Timing(String),
    /// A panic inside the library, caught at the boundary.
    #[error("internal error: {0}; please report it")]
    Panic(String),
}

impl Error {
    /// The stable code: a diagnostic's code, or one of `null-argument`, `invalid-utf8`,
    /// `unsupported`, `not-one-step`, `not-running`, `timing`, `internal-panic`.
    pub(crate) fn code(&self) -> &'static str {
        match self {
            Error::Null(_) => "null-argument",
            Error::NotUtf8(_) => "invalid-utf8",
            Error::Diagnostic { code, .. } => code,
            Error::Unsupported(_) => "unsupported",
            Error::NotOneStep(_) => "not-one-step",
            Error::NotRunning(_) => "not-running",
            Error::Timing(_) => "timing",
            Error::Panic(_) => "internal-panic",
        }
    }

    /// The first error among `diagnostics` of `text` (the file `name`), as `file:line:col:
    /// message (help)`.
    pub(crate) fn first_of(diagnostics: &[Diagnostic], text: &str, name: &str) -> Option<Error> {
        let d = diagnostics.iter().find(|d| d.is_error())?;
        let at = LineIndex::new(text).line_col(text, d.span.start);
        let help = d
            .help
            .as_deref()
            .map(|h| format!(" ({h})"))
            .unwrap_or_default();
        Some(Error::Diagnostic {
            code: d.code.as_str(),
            message: format!("{name}:{}:{}: {}{help}", at.line, at.col, d.message),
        })
    }
}

/// The file name a diagnostic's file kind is reported under.
pub(crate) fn file_name(kind: FileKind) -> &'static str {
    match kind {
        FileKind::Domain => "domain.pddl",
        FileKind::Problem => "problem.pddl",
        _ => "plan",
    }
}

/// An error returned through a `safeplan_error **` argument. Free it with
/// `safeplan_error_free`.
pub struct safeplan_error {
    code: CString,
    message: CString,
}

impl safeplan_error {
    fn new(e: &Error) -> safeplan_error {
        safeplan_error {
            code: c_string(e.code()),
            message: c_string(&e.to_string()),
        }
    }
}

/// `s` as a C string; an interior NUL (never written by the library, but a name could hold
/// one) becomes U+FFFD.
pub(crate) fn c_string(s: &str) -> CString {
    CString::new(s.replace('\0', "\u{fffd}")).unwrap_or_default()
}

thread_local! {
    /// Whether this thread is inside an entry point's guard: a panic there is returned as an
    /// error, so the panic hook says nothing.
    static GUARDED: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Install, once, a panic hook that is silent inside a guard and leaves every other panic
/// (the host program's own Rust, if any) to the hook that was there before: a C program's
/// stderr is not ours to write to.
fn quiet_panics_in_guards() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if !GUARDED.with(std::cell::Cell::get) {
                previous(info);
            }
        }));
    });
}

/// Run an entry point: its value, or NULL/the default with `*err` set (when `err` is not
/// NULL) to the error or to the panic caught here. Nothing unwinds into C, and nothing is
/// printed.
pub(crate) fn guard<T>(
    err: *mut *mut safeplan_error,
    default: T,
    f: impl FnOnce() -> Result<T, Error>,
) -> T {
    quiet_panics_in_guards();
    let was = GUARDED.with(|g| g.replace(true));
    let caught = catch_unwind(AssertUnwindSafe(f));
    GUARDED.with(|g| g.set(was));
    let outcome = match caught {
        Ok(result) => result,
        Err(panic) => {
            let what = panic
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "a panic".into());
            Err(Error::Panic(what))
        }
    };
    match outcome {
        Ok(v) => v,
        Err(e) => {
            if !err.is_null() {
                let boxed = Box::into_raw(Box::new(safeplan_error::new(&e)));
                // SAFETY: `err` is not NULL, and the caller passes a pointer to a
                // `safeplan_error *` it owns (the header's contract for every `err`).
                unsafe { *err = boxed };
            }
            default
        }
    }
}

/// The text at `p` (a NUL-terminated C string), or the error a NULL or non-UTF-8 one is.
///
/// # Safety
/// `p` is NULL or points to a NUL-terminated string that stays valid for `'a`.
pub(crate) unsafe fn text<'a>(p: *const c_char, name: &'static str) -> Result<&'a str, Error> {
    if p.is_null() {
        return Err(Error::Null(name));
    }
    // SAFETY: not NULL, NUL-terminated and valid for 'a by this function's contract.
    let c = unsafe { CStr::from_ptr(p) };
    c.to_str().map_err(|_| Error::NotUtf8(name))
}

/// The message of an error (a sentence with `file:line:col` when it is about a text). The
/// string lives as long as the error. NULL for a NULL error.
///
/// # Safety
/// `e` is NULL or an error this library returned and the caller has not freed.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn safeplan_error_message(e: *const safeplan_error) -> *const c_char {
    // SAFETY: NULL or a pointer this library returned and the caller has not freed.
    unsafe { e.as_ref() }.map_or(std::ptr::null(), |e| e.message.as_ptr())
}

/// The error's stable code: a diagnostic code such as `undefined-predicate`, or
/// `null-argument`, `invalid-utf8`, `unsupported`, `not-one-step`, `not-running`, `timing`,
/// `internal-panic`. The string lives as long as the error. NULL for a NULL error.
///
/// # Safety
/// `e` is NULL or an error this library returned and the caller has not freed.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn safeplan_error_code(e: *const safeplan_error) -> *const c_char {
    // SAFETY: NULL or a pointer this library returned and the caller has not freed.
    unsafe { e.as_ref() }.map_or(std::ptr::null(), |e| e.code.as_ptr())
}

/// Free an error (NULL is accepted).
///
/// # Safety
/// `e` is NULL or an error this library returned, not freed before.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn safeplan_error_free(e: *mut safeplan_error) {
    if !e.is_null() {
        // SAFETY: a pointer `guard` made with `Box::into_raw`, freed once by the caller.
        drop(unsafe { Box::from_raw(e) });
    }
}
