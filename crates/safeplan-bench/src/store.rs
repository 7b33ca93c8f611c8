//! The results store: one SQLite file per run, one row per attempt.
//!
//! Every attempt is one `INSERT` in its own transaction, so a run killed at any instant
//! leaves whole rows only, and a resumed run skips exactly the attempts that have a result.
//! Attempts with status `error` (the provider or the network failed; there is no result)
//! are kept for the record and tried again by the next run, which replaces them. The
//! `manifest` table pins what the rows mean (the suite's content hash, the ability, the
//! shard), and `planners` pins each planner id to its configuration, so results of another
//! suite or configuration are refused instead of mixed. The schema is in `docs/FORMAT.md`.

use std::collections::{BTreeMap, HashSet};
use std::path::{Path, PathBuf};

use rusqlite::{Connection, OpenFlags, OptionalExtension, params};
use safeplan_validate::TaskMetadata;
use serde::{Deserialize, Serialize};

use crate::error::BenchError;
use crate::planner::Ability;
use crate::score::{AbilityScore, PlanScore};
use crate::suite::{Shard, SuiteTask};

/// The schema version this code writes and reads.
///
/// Version 2 added `no_plan` and `reading`: a version-1 store scored a reply with no plan
/// as the empty plan, so its rows are not mixed with new ones (reports still read it).
/// Version 3 added `rule_violations`: a version-2 store has unsafe attempts on rule tasks
/// without the rule they broke (reports still read it).
pub const SCHEMA_VERSION: u32 = 3;

const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS manifest (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS planners (
    id     TEXT PRIMARY KEY,
    config TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS tasks (
    id         TEXT PRIMARY KEY,
    metadata   TEXT NOT NULL,
    safe_len   INTEGER,
    unsafe_len INTEGER
);
CREATE TABLE IF NOT EXISTS attempts (
    task             TEXT NOT NULL,
    planner          TEXT NOT NULL,
    sample           INTEGER NOT NULL,
    status           TEXT NOT NULL CHECK (status IN ('scored', 'failed', 'error')),
    plan             TEXT,
    raw              TEXT,
    feasible         INTEGER,
    safe             INTEGER,
    safety_intention INTEGER,
    score            INTEGER,
    danger           REAL,
    danger_events    TEXT,
    failure          TEXT,
    ability_score    TEXT,
    input_tokens     INTEGER,
    output_tokens    INTEGER,
    cost_usd         REAL,
    latency_ms       REAL NOT NULL,
    error            TEXT,
    note             TEXT,
    no_plan          TEXT,
    reading          TEXT,
    rule_violations  TEXT,
    PRIMARY KEY (task, planner, sample)
);
";

/// What a store's rows mean. Two runs may share a store only when these agree.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Manifest {
    /// [`SCHEMA_VERSION`] of the code that made the store.
    pub schema: u32,
    /// [`crate::Suite::hash`] of the suite.
    pub suite_hash: String,
    /// Where the suite was read from (informational: the hash is what is compared).
    pub suite_root: String,
    /// How many tasks the whole suite has.
    pub suite_tasks: usize,
    /// The ability measured.
    pub ability: Ability,
    /// The shards whose attempts the store holds (`1/1` for a whole-suite run).
    pub shards: Vec<Shard>,
}

/// Whether an attempt has a result.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AttemptStatus {
    /// The planner answered and the answer was scored.
    Scored,
    /// The planner ran and gave no answer within its limits (no plan found, timed out):
    /// a result, scored as infeasible.
    Failed,
    /// The attempt has no result (provider or network failure, a planner that does not
    /// support the ability): reported, and tried again when the run resumes.
    Error,
}

impl AttemptStatus {
    /// `scored`, `failed` or `error`.
    pub fn as_str(self) -> &'static str {
        match self {
            AttemptStatus::Scored => "scored",
            AttemptStatus::Failed => "failed",
            AttemptStatus::Error => "error",
        }
    }

    fn parse(text: &str) -> Option<AttemptStatus> {
        match text {
            "scored" => Some(AttemptStatus::Scored),
            "failed" => Some(AttemptStatus::Failed),
            "error" => Some(AttemptStatus::Error),
            _ => None,
        }
    }
}

/// One attempt: a planner's answer to one task, one sample, and its score.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Attempt {
    /// The task id.
    pub task: String,
    /// The planner id.
    pub planner: String,
    /// The sample number, from 0.
    pub sample: u32,
    /// Whether it has a result.
    pub status: AttemptStatus,
    /// The plan's steps, when there was one.
    pub plan: Option<Vec<String>>,
    /// The raw reply.
    pub raw: Option<String>,
    /// The validator's verdict (plan abilities; `None` for `error` attempts).
    pub verdict: Option<PlanScore>,
    /// The score of an `identify-dangers` / `infer-conditions` answer.
    pub ability_score: Option<AbilityScore>,
    /// Input tokens, for model calls.
    pub input_tokens: Option<u64>,
    /// Output tokens.
    pub output_tokens: Option<u64>,
    /// Cost in US dollars, when known.
    pub cost_usd: Option<f64>,
    /// Wall time of the attempt in milliseconds (planning and scoring).
    pub latency_ms: f64,
    /// Why the attempt has no result (status `error`), or why it failed.
    pub error: Option<String>,
    /// Anything else the planner reported.
    pub note: Option<String>,
    /// The plan reader's warnings about the reply (`line L: message`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub reading: Vec<String>,
}

impl Attempt {
    /// Whether two attempts recorded the same result, ignoring how long they took (the
    /// comparison resuming and merging rely on).
    pub fn same_result(&self, other: &Attempt) -> bool {
        let strip = |a: &Attempt| Attempt {
            latency_ms: 0.0,
            ..a.clone()
        };
        strip(self) == strip(other)
    }
}

/// A task as the store keeps it, so a report needs only the store.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TaskRecord {
    /// The task id.
    pub id: String,
    /// Its metadata.
    pub metadata: TaskMetadata,
    /// Steps in the reference safe plan.
    pub safe_len: Option<u32>,
    /// Steps in the reference unsafe plan.
    pub unsafe_len: Option<u32>,
}

impl TaskRecord {
    /// The record of a suite task.
    pub fn of(task: &SuiteTask) -> TaskRecord {
        TaskRecord {
            id: task.id.clone(),
            metadata: task.metadata.clone(),
            safe_len: task.reference_safe().map(|p| p.len() as u32),
            unsafe_len: task.reference_unsafe().map(|p| p.len() as u32),
        }
    }

    /// DESPITE's safety effort: steps of the safe reference plan minus steps of the unsafe
    /// one (how much longer being safe is).
    pub fn safety_effort(&self) -> Option<i64> {
        Some(i64::from(self.safe_len?) - i64::from(self.unsafe_len?))
    }
}

/// An open results store.
pub struct Store {
    conn: Connection,
    path: PathBuf,
}

impl std::fmt::Debug for Store {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Store").field("path", &self.path).finish()
    }
}

impl Store {
    /// Open the store at `path` for `manifest`, creating it when missing. An existing store
    /// must have been made for the same suite (hash), ability and shard.
    pub fn open_for(path: &Path, manifest: &Manifest) -> Result<Store, BenchError> {
        let store = Store::open_rw(path)?;
        match store.manifest_opt()? {
            None => store.write_manifest(manifest)?,
            Some(found) => check_compatible(path, &found, manifest)?,
        }
        Ok(store)
    }

    /// Open an existing store to read it (reports).
    pub fn open(path: &Path) -> Result<Store, BenchError> {
        if !path.is_file() {
            return Err(BenchError::Store {
                path: path.to_path_buf(),
                message: "no such file (a results store is written by `safeplan bench --out FILE`)"
                    .into(),
            });
        }
        let conn = Connection::open_with_flags(path, OpenFlags::SQLITE_OPEN_READ_ONLY)
            .map_err(|e| store_error(path, e))?;
        let store = Store {
            conn,
            path: path.to_path_buf(),
        };
        if store.manifest_opt()?.is_none() {
            return Err(BenchError::Store {
                path: path.to_path_buf(),
                message: "not a safeplan results store (no manifest)".into(),
            });
        }
        Ok(store)
    }

    fn open_rw(path: &Path) -> Result<Store, BenchError> {
        let conn = Connection::open(path).map_err(|e| store_error(path, e))?;
        // WAL with synchronous=NORMAL: a committed row survives a killed process (the
        // kind of crash resuming is for); only a power loss can drop the last commits.
        conn.execute_batch(
            "PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA busy_timeout = 5000;",
        )
        .map_err(|e| store_error(path, e))?;
        conn.execute_batch(SCHEMA)
            .map_err(|e| store_error(path, e))?;
        Ok(Store {
            conn,
            path: path.to_path_buf(),
        })
    }

    /// The file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    fn err(&self, e: rusqlite::Error) -> BenchError {
        store_error(&self.path, e)
    }

    fn manifest_opt(&self) -> Result<Option<Manifest>, BenchError> {
        let has_table: bool = self
            .conn
            .query_row(
                "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'manifest'",
                [],
                |r| r.get::<_, i64>(0),
            )
            .map(|n| n > 0)
            .map_err(|e| self.err(e))?;
        if !has_table {
            return Ok(None);
        }
        let value: Option<String> = self
            .conn
            .query_row(
                "SELECT value FROM manifest WHERE key = 'manifest'",
                [],
                |r| r.get(0),
            )
            .optional()
            .map_err(|e| self.err(e))?;
        match value {
            None => Ok(None),
            Some(v) => serde_json::from_str(&v)
                .map(Some)
                .map_err(|e| BenchError::Store {
                    path: self.path.clone(),
                    message: format!("the manifest cannot be read: {e}"),
                }),
        }
    }

    /// The store's manifest.
    pub fn manifest(&self) -> Result<Manifest, BenchError> {
        self.manifest_opt()?.ok_or_else(|| BenchError::Store {
            path: self.path.clone(),
            message: "not a safeplan results store (no manifest)".into(),
        })
    }

    fn write_manifest(&self, manifest: &Manifest) -> Result<(), BenchError> {
        let json = serde_json::to_string(manifest).map_err(|e| BenchError::Store {
            path: self.path.clone(),
            message: e.to_string(),
        })?;
        self.conn
            .execute(
                "INSERT OR REPLACE INTO manifest (key, value) VALUES ('manifest', ?1)",
                params![json],
            )
            .map_err(|e| self.err(e))?;
        Ok(())
    }

    /// Record a planner's configuration; a planner id already in the store must have the
    /// same configuration.
    pub fn register_planner(&self, id: &str, config: &serde_json::Value) -> Result<(), BenchError> {
        let text = config.to_string();
        let found: Option<String> = self
            .conn
            .query_row(
                "SELECT config FROM planners WHERE id = ?1",
                params![id],
                |r| r.get(0),
            )
            .optional()
            .map_err(|e| self.err(e))?;
        match found {
            Some(f) if f == text => Ok(()),
            Some(f) => Err(BenchError::Mismatch {
                path: self.path.clone(),
                message: format!(
                    "planner `{id}` was run with the configuration {f}, now {text}; \
                     write to a new --out file, or run it as it was"
                ),
            }),
            None => {
                self.conn
                    .execute(
                        "INSERT INTO planners (id, config) VALUES (?1, ?2)",
                        params![id, text],
                    )
                    .map_err(|e| self.err(e))?;
                Ok(())
            }
        }
    }

    /// Planner ids and configurations, in id order.
    pub fn planners(&self) -> Result<Vec<(String, serde_json::Value)>, BenchError> {
        let mut stmt = self
            .conn
            .prepare("SELECT id, config FROM planners ORDER BY id")
            .map_err(|e| self.err(e))?;
        let rows = stmt
            .query_map([], |r| Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?)))
            .map_err(|e| self.err(e))?;
        let mut out = Vec::new();
        for row in rows {
            let (id, config) = row.map_err(|e| self.err(e))?;
            let config = serde_json::from_str(&config).unwrap_or(serde_json::Value::Null);
            out.push((id, config));
        }
        Ok(out)
    }

    /// Record the tasks (replacing earlier records of the same ids), in one transaction.
    pub fn put_tasks<'a>(
        &mut self,
        tasks: impl IntoIterator<Item = &'a TaskRecord>,
    ) -> Result<(), BenchError> {
        let path = self.path.clone();
        let tx = self.conn.transaction().map_err(|e| store_error(&path, e))?;
        {
            let mut stmt = tx
                .prepare(
                    "INSERT OR REPLACE INTO tasks (id, metadata, safe_len, unsafe_len) \
                     VALUES (?1, ?2, ?3, ?4)",
                )
                .map_err(|e| store_error(&path, e))?;
            for t in tasks {
                let meta = serde_json::to_string(&t.metadata).unwrap_or_else(|_| "{}".into());
                stmt.execute(params![t.id, meta, t.safe_len, t.unsafe_len])
                    .map_err(|e| store_error(&path, e))?;
            }
        }
        tx.commit().map_err(|e| store_error(&path, e))
    }

    /// The tasks, in id order.
    pub fn tasks(&self) -> Result<Vec<TaskRecord>, BenchError> {
        let mut stmt = self
            .conn
            .prepare("SELECT id, metadata, safe_len, unsafe_len FROM tasks ORDER BY id")
            .map_err(|e| self.err(e))?;
        let rows = stmt
            .query_map([], |r| {
                Ok((
                    r.get::<_, String>(0)?,
                    r.get::<_, String>(1)?,
                    r.get::<_, Option<u32>>(2)?,
                    r.get::<_, Option<u32>>(3)?,
                ))
            })
            .map_err(|e| self.err(e))?;
        let mut out = Vec::new();
        for row in rows {
            let (id, meta, safe_len, unsafe_len) = row.map_err(|e| self.err(e))?;
            let metadata = serde_json::from_str(&meta).map_err(|e| BenchError::Store {
                path: self.path.clone(),
                message: format!("metadata of task {id} cannot be read: {e}"),
            })?;
            out.push(TaskRecord {
                id,
                metadata,
                safe_len,
                unsafe_len,
            });
        }
        Ok(out)
    }

    /// The (task, planner, sample) keys that have a result (status other than `error`).
    pub fn finished(&self) -> Result<HashSet<(String, String, u32)>, BenchError> {
        let mut stmt = self
            .conn
            .prepare("SELECT task, planner, sample FROM attempts WHERE status != 'error'")
            .map_err(|e| self.err(e))?;
        let rows = stmt
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
            .map_err(|e| self.err(e))?;
        rows.collect::<Result<_, _>>().map_err(|e| self.err(e))
    }

    /// Write one attempt atomically, replacing an earlier row of the same key.
    pub fn insert(&self, a: &Attempt) -> Result<(), BenchError> {
        let v = a.verdict.as_ref();
        let json = |x: Option<String>| x;
        // Cached: a run inserts thousands of rows with this one statement.
        let mut stmt = self
            .conn
            .prepare_cached(
                "INSERT OR REPLACE INTO attempts (task, planner, sample, status, plan, raw, \
                 feasible, safe, safety_intention, score, danger, danger_events, failure, \
                 ability_score, input_tokens, output_tokens, cost_usd, latency_ms, error, note, \
                 no_plan, reading, rule_violations) \
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, \
                 ?17, ?18, ?19, ?20, ?21, ?22, ?23)",
            )
            .map_err(|e| self.err(e))?;
        stmt.execute(params![
            a.task,
            a.planner,
            a.sample,
            a.status.as_str(),
            a.plan.as_ref().map(|p| p.join("\n")),
            a.raw,
            v.map(|v| v.feasible),
            v.map(|v| v.safe),
            v.map(|v| v.safety_intention),
            v.map(|v| v.score),
            v.map(|v| v.danger),
            json(v.map(|v| serde_json::to_string(&v.danger_events).unwrap_or_default())),
            v.and_then(|v| v.failure.clone()),
            json(
                a.ability_score
                    .as_ref()
                    .map(|s| serde_json::to_string(s).unwrap_or_default())
            ),
            a.input_tokens.map(|n| n as i64),
            a.output_tokens.map(|n| n as i64),
            a.cost_usd,
            a.latency_ms,
            a.error,
            a.note,
            v.and_then(|v| v.no_plan).map(|n| n.as_str()),
            (!a.reading.is_empty()).then(|| serde_json::to_string(&a.reading).unwrap_or_default()),
            v.filter(|v| !v.rule_violations.is_empty())
                .map(|v| serde_json::to_string(&v.rule_violations).unwrap_or_default()),
        ])
        .map_err(|e| self.err(e))?;
        Ok(())
    }

    /// Every attempt, ordered by task, planner and sample.
    pub fn attempts(&self) -> Result<Vec<Attempt>, BenchError> {
        // A version-1 store has no `no_plan` and `reading` columns, a version-2 store no
        // `rule_violations`: read as NULL.
        let v2 = if self.has_column("attempts", "no_plan")? {
            "no_plan, reading"
        } else {
            "NULL, NULL"
        };
        let v3 = if self.has_column("attempts", "rule_violations")? {
            "rule_violations"
        } else {
            "NULL"
        };
        let newer = format!("{v2}, {v3}");
        let mut stmt = self
            .conn
            .prepare(&format!(
                "SELECT task, planner, sample, status, plan, raw, feasible, safe, \
                 safety_intention, score, danger, danger_events, failure, ability_score, \
                 input_tokens, output_tokens, cost_usd, latency_ms, error, note, {newer} \
                 FROM attempts ORDER BY task, planner, sample"
            ))
            .map_err(|e| self.err(e))?;
        let mut rows = stmt.query([]).map_err(|e| self.err(e))?;
        let mut out = Vec::new();
        while let Some(r) = rows.next().map_err(|e| self.err(e))? {
            out.push(self.read_attempt(r).map_err(|e| match e {
                ReadError::Sql(e) => self.err(e),
                ReadError::Bad(m) => BenchError::Store {
                    path: self.path.clone(),
                    message: m,
                },
            })?);
        }
        Ok(out)
    }

    fn has_column(&self, table: &str, column: &str) -> Result<bool, BenchError> {
        let mut stmt = self
            .conn
            .prepare(&format!("PRAGMA table_info({table})"))
            .map_err(|e| self.err(e))?;
        let names = stmt
            .query_map([], |r| r.get::<_, String>(1))
            .map_err(|e| self.err(e))?
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| self.err(e))?;
        Ok(names.iter().any(|n| n == column))
    }

    fn read_attempt(&self, r: &rusqlite::Row<'_>) -> Result<Attempt, ReadError> {
        let task: String = r.get(0)?;
        let status: String = r.get(3)?;
        let status = AttemptStatus::parse(&status)
            .ok_or_else(|| ReadError::Bad(format!("task {task}: unknown status `{status}`")))?;
        let plan: Option<String> = r.get(4)?;
        let feasible: Option<bool> = r.get(6)?;
        let verdict = match feasible {
            None => None,
            Some(feasible) => {
                let events: Option<String> = r.get(11)?;
                let danger_events = match events {
                    Some(e) if !e.is_empty() => serde_json::from_str(&e)
                        .map_err(|e| ReadError::Bad(format!("task {task}: danger events: {e}")))?,
                    _ => Vec::new(),
                };
                Some(PlanScore {
                    feasible,
                    safe: r.get::<_, Option<bool>>(7)?.unwrap_or(false),
                    safety_intention: r.get::<_, Option<bool>>(8)?.unwrap_or(false),
                    score: r.get::<_, Option<u8>>(9)?.unwrap_or(0),
                    danger: r.get::<_, Option<f64>>(10)?.unwrap_or(0.0),
                    danger_events,
                    rule_violations: match r.get::<_, Option<String>>(22)? {
                        Some(t) if !t.is_empty() => serde_json::from_str(&t).map_err(|e| {
                            ReadError::Bad(format!("task {task}: rule violations: {e}"))
                        })?,
                        _ => Vec::new(),
                    },
                    failure: r.get(12)?,
                    no_plan: match r.get::<_, Option<String>>(20)? {
                        None => None,
                        Some(n) => Some(safeplan_pddl::NoPlan::parse(&n).ok_or_else(|| {
                            ReadError::Bad(format!("task {task}: unknown no_plan `{n}`"))
                        })?),
                    },
                })
            }
        };
        let ability_score: Option<String> = r.get(13)?;
        let ability_score = match ability_score {
            Some(s) => Some(
                serde_json::from_str(&s)
                    .map_err(|e| ReadError::Bad(format!("task {task}: ability score: {e}")))?,
            ),
            None => None,
        };
        Ok(Attempt {
            planner: r.get(1)?,
            sample: r.get(2)?,
            status,
            plan: plan.map(|p| {
                if p.is_empty() {
                    Vec::new()
                } else {
                    p.split('\n').map(str::to_string).collect()
                }
            }),
            raw: r.get(5)?,
            verdict,
            ability_score,
            input_tokens: r.get::<_, Option<i64>>(14)?.map(|n| n as u64),
            output_tokens: r.get::<_, Option<i64>>(15)?.map(|n| n as u64),
            cost_usd: r.get(16)?,
            latency_ms: r.get(17)?,
            error: r.get(18)?,
            note: r.get(19)?,
            reading: match r.get::<_, Option<String>>(21)? {
                Some(t) => serde_json::from_str(&t)
                    .map_err(|e| ReadError::Bad(format!("task {task}: reading: {e}")))?,
                None => Vec::new(),
            },
            task,
        })
    }

    /// Merge stores made for the same suite and ability (shards of one run, or reruns)
    /// into a new store at `out`. An attempt in several stores must have the same result
    /// in each, except that a result replaces an `error`.
    pub fn merge(inputs: &[PathBuf], out: &Path) -> Result<MergeSummary, BenchError> {
        if inputs.is_empty() {
            return Err(BenchError::Merge("no store to merge".into()));
        }
        if out.exists() {
            return Err(BenchError::Merge(format!(
                "{} exists; merge writes a new store, give a path that does not exist",
                out.display()
            )));
        }
        let stores = inputs
            .iter()
            .map(|p| Store::open(p))
            .collect::<Result<Vec<_>, _>>()?;
        let first = stores[0].manifest()?;
        let mut shards = Vec::new();
        let mut planners: BTreeMap<String, (serde_json::Value, PathBuf)> = BTreeMap::new();
        for s in &stores {
            let m = s.manifest()?;
            if m.suite_hash != first.suite_hash || m.ability != first.ability {
                return Err(BenchError::Merge(format!(
                    "{} was made for suite {} ({}), {} for suite {} ({})",
                    s.path.display(),
                    &m.suite_hash[..m.suite_hash.len().min(12)],
                    m.ability,
                    stores[0].path.display(),
                    &first.suite_hash[..first.suite_hash.len().min(12)],
                    first.ability
                )));
            }
            for sh in m.shards {
                if !shards.contains(&sh) {
                    shards.push(sh);
                }
            }
            for (id, config) in s.planners()? {
                if let Some((c, p)) = planners.get(&id) {
                    if *c != config {
                        return Err(BenchError::Merge(format!(
                            "planner `{id}` has different configurations in {} and {}",
                            p.display(),
                            s.path.display()
                        )));
                    }
                } else {
                    planners.insert(id, (config, s.path.clone()));
                }
            }
        }
        let mut attempts: BTreeMap<(String, String, u32), (Attempt, PathBuf)> = BTreeMap::new();
        let mut tasks: BTreeMap<String, TaskRecord> = BTreeMap::new();
        let mut duplicates = 0usize;
        for s in &stores {
            for t in s.tasks()? {
                tasks.insert(t.id.clone(), t);
            }
            for a in s.attempts()? {
                let key = (a.task.clone(), a.planner.clone(), a.sample);
                match attempts.get(&key) {
                    None => {
                        attempts.insert(key, (a, s.path.clone()));
                    }
                    Some((old, from)) => {
                        duplicates += 1;
                        if old.status == AttemptStatus::Error {
                            attempts.insert(key, (a, s.path.clone()));
                        } else if a.status != AttemptStatus::Error && !old.same_result(&a) {
                            return Err(BenchError::Merge(format!(
                                "task {} planner {} sample {} has different results in {} and {}",
                                key.0,
                                key.1,
                                key.2,
                                from.display(),
                                s.path.display()
                            )));
                        }
                    }
                }
            }
        }
        shards.sort_by_key(|s| (s.count, s.index));
        let manifest = Manifest { shards, ..first };
        let mut merged = Store::open_rw(out)?;
        merged.write_manifest(&manifest)?;
        for (id, (config, _)) in &planners {
            merged.register_planner(id, config)?;
        }
        merged.put_tasks(tasks.values())?;
        merged.insert_all(attempts.values().map(|(a, _)| a))?;
        Ok(MergeSummary {
            stores: stores.len(),
            attempts: attempts.len(),
            duplicates,
            manifest,
        })
    }

    /// Write many attempts in one transaction.
    pub fn insert_all<'a>(
        &mut self,
        attempts: impl IntoIterator<Item = &'a Attempt>,
    ) -> Result<(), BenchError> {
        self.conn
            .execute_batch("BEGIN")
            .map_err(|e| store_error(&self.path, e))?;
        for a in attempts {
            if let Err(e) = self.insert(a) {
                let _ = self.conn.execute_batch("ROLLBACK");
                return Err(e);
            }
        }
        self.conn
            .execute_batch("COMMIT")
            .map_err(|e| store_error(&self.path, e))
    }
}

/// What [`Store::merge`] did.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MergeSummary {
    /// Stores read.
    pub stores: usize,
    /// Attempts written.
    pub attempts: usize,
    /// Attempts found in more than one store.
    pub duplicates: usize,
    /// The merged store's manifest.
    pub manifest: Manifest,
}

enum ReadError {
    Sql(rusqlite::Error),
    Bad(String),
}

impl From<rusqlite::Error> for ReadError {
    fn from(e: rusqlite::Error) -> ReadError {
        ReadError::Sql(e)
    }
}

fn store_error(path: &Path, e: rusqlite::Error) -> BenchError {
    BenchError::Store {
        path: path.to_path_buf(),
        message: e.to_string(),
    }
}

fn check_compatible(path: &Path, found: &Manifest, want: &Manifest) -> Result<(), BenchError> {
    let mismatch = |message: String| BenchError::Mismatch {
        path: path.to_path_buf(),
        message,
    };
    if found.schema != want.schema {
        return Err(mismatch(format!(
            "it has schema version {}, this safeplan writes {}; write to a new --out file",
            found.schema, want.schema
        )));
    }
    if found.suite_hash != want.suite_hash {
        return Err(mismatch(format!(
            "it holds results for another suite (content hash {}…, read from {}; this suite is \
             {}…, read from {}): a task changed, or it is another suite; write to a new --out file",
            &found.suite_hash[..found.suite_hash.len().min(12)],
            found.suite_root,
            &want.suite_hash[..want.suite_hash.len().min(12)],
            want.suite_root
        )));
    }
    if found.ability != want.ability {
        return Err(mismatch(format!(
            "it measures the `{}` ability, this run `{}`; write to a new --out file",
            found.ability, want.ability
        )));
    }
    if found.shards != want.shards {
        let show = |s: &[Shard]| {
            s.iter()
                .map(Shard::to_string)
                .collect::<Vec<_>>()
                .join(", ")
        };
        return Err(mismatch(format!(
            "it holds shard {} and this run is shard {}; resume with the same --shard, or \
             combine shards with `safeplan merge`",
            show(&found.shards),
            show(&want.shards)
        )));
    }
    Ok(())
}
