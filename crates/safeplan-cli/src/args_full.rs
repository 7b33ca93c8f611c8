//! The whole command line of `safeplan-full`: the core commands of [`crate::args`] and the
//! ones that need the LLM, benchmark, judge and MCP crates, as clap derive types.

use clap::Subcommand;

use crate::args::CoreCommand;

/// The command line of `safeplan-full`.
pub type Cli = crate::args::Cli<Command>;

/// Every subcommand.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// The core commands.
    #[command(flatten)]
    Core(CoreCommand),

    /// Try an LLM provider: send one prompt through the benchmark's provider stack.
    Llm(crate::llm::LlmArgs),

    /// Run the Judge–Planner loop over episodes and score it against gold labels.
    #[command(
        long_about = "Run the plan verification loop (Algorithm 1 of Hariharan et al.) over an \
                      episodes file: each round the judge critiques the action sequence \
                      (#REMOVE a step, #MISSING steps), the reviser applies the critiques, \
                      until the judge raises nothing or --max-rounds pass. Every step keeps the \
                      index it had in the original sequence, so what was flagged is exact.\n\n\
                      Judges: rule (the paper's rule baseline), state (our state-tracking judge \
                      for TEACh-style sequences), symbolic (for episodes bound to a PDDL task), \
                      ensemble:union|intersection|majority:A,B. Writes refined.jsonl and \
                      transcript.jsonl into --out, and metrics.json (precision, recall, F1, the \
                      convergence curve) when the episodes carry gold labels.",
        after_help = "Examples:\n  \
                      safeplan judge ../shared/data/teach/judge-dev.jsonl --judge state\n  \
                      safeplan judge episodes.jsonl --judge ensemble:union:state,rule --out runs/ens\n  \
                      safeplan judge episodes.jsonl.gz --judge state --max-rounds 3\n\n\
                      Exit status: 0 every episode ran, 1 some episode's loop stopped on an \
                      error (the rest are written), 2 unusable invocation or episodes file."
    )]
    Judge(crate::judge::JudgeArgs),

    /// Serve safeplan's tools to agents over the Model Context Protocol (stdio).
    #[command(
        long_about = "Run an MCP server on standard input and output: the tools check_pddl, \
                      validate_plan, basic_task, find_plan (PDDL as text), critique_plan and \
                      refine_plan (the judge loop on an action sequence). An MCP client \
                      (a desktop agent, an IDE) starts it as a subprocess; see docs/MCP.md.",
        after_help = "Client configuration:\n  \
                      {\"mcpServers\": {\"safeplan\": {\"command\": \"safeplan\", \"args\": [\"mcp\"]}}}\n\n\
                      Exit status: 0 the client closed the connection, 2 the server could not run."
    )]
    Mcp(crate::mcp::McpArgs),

    /// Learn the state judge's priors (how real play uses each object class) from
    /// unlabelled episodes.
    #[command(
        long_about = "Count, for each object class of TEACh-style episodes (the name without \
                      its instance number), how often each verb used it as the object and as \
                      the target. No labels are read. The state judge ships with the counts of \
                      teach/episodes.jsonl.gz; this is the command that made them.",
        after_help = "Example:\n  \
                      safeplan priors ../shared/data/teach/episodes.jsonl.gz \
                      --out crates/safeplan-judge/data/teach-priors.json\n\n\
                      Exit status: 0 written, 2 unreadable episodes or unwritable --out."
    )]
    Priors(crate::priors::PriorsArgs),

    /// Make a labelled synthetic judge set: the plan verification paper's four kinds of
    /// noise injected into real unlabelled games at known places.
    #[command(
        long_about = "Take the shortest --games unlabelled TEACh-style games and inject, into \
                      each, each of the paper's kinds of noise that fits it (an irrelevant \
                      pick-up and placement, a wrong placement followed by a recovery, extra \
                      turns, a put or pour substituted by a verb real play never uses there), \
                      one episode per game and kind, with gold labels at the injected steps. \
                      Score a judge on it with `safeplan judge FILE --cv 5`.",
        after_help = "Example:\n  \
                      safeplan teach-noise ../shared/data/teach/episodes.jsonl.gz --out synth.jsonl\n  \
                      safeplan judge synth.jsonl --judge state --cv 5\n\n\
                      Exit status: 0 written, 2 unreadable episodes or unwritable --out."
    )]
    TeachNoise(crate::teach_noise::TeachNoiseArgs),

    /// Benchmark planners on a suite of safety-augmented tasks, resumably.
    #[command(
        long_about = "Run every planner on every task of a suite (tasks x planners x samples \
                      attempts), score each answer as DESPITE does (feasible, safe, safety \
                      intention, the danger events), and write each attempt to a SQLite \
                      results store the moment it is scored. A run that is killed or \
                      stopped with Ctrl-C resumes where it stopped when the same command is run \
                      again: attempts with a result are skipped, attempts that failed for \
                      reasons outside the planner (network, provider) are retried. A store \
                      made for another suite, ability, shard or planner configuration is \
                      refused. At the end the report is printed as Markdown and written as \
                      HTML with charts.\n\n\
                      Planner specs: search[:bfs|astar|gbfs] (our planner on the basic task, \
                      blind to danger), search-safe[:ALG] (our planner searching for a safe \
                      plan), llm:PROVIDER:MODEL (openai, gemini, ollama; see docs/LLM.md), \
                      replay:FILE (recorded plans, JSON Lines {\"task\", \"planner\", \
                      \"plan\"}), cmd:'COMMAND {domain} {problem} {plan}' (an external \
                      planner; {domain}/{problem} are the basic task, {safe_domain}/\
                      {safe_problem} the safety-augmented one, without {plan} the plan is read \
                      from standard output).",
        after_help = "Examples:\n  \
                      safeplan bench examples/tasks\n  \
                      safeplan bench examples/tasks --planner llm:ollama:llama3.2 --samples 3\n  \
                      safeplan bench suite/ --planner replay:plans.jsonl --out runs/replay.db\n  \
                      safeplan bench suite/ --planner \"cmd:fast-downward.py --plan-file {plan} {domain} {problem} --search 'astar(lmcut())'\"\n  \
                      safeplan bench suite/ --shard 2/4 --out shard2.db\n\n\
                      Exit status: 0 every attempt has a result, 2 unusable invocation, suite \
                      or store, 3 some attempts have no result (provider or network errors; \
                      run again to retry them), 130 stopped by Ctrl-C (run again to resume)."
    )]
    Bench(crate::bench::BenchArgs),

    /// Combine results stores of one suite (shards, or runs of other planners).
    #[command(after_help = "Examples:\n  \
                      safeplan merge shard1.db shard2.db shard3.db --out all.db\n\n\
                      Exit status: 0 merged, 2 a store that cannot be read, stores of \
                      different suites or abilities, conflicting results, or an --out that \
                      exists.")]
    Merge(crate::bench::MergeArgs),
    /// Generate a synthetic DESPITE-shaped suite with verified safe and unsafe reference plans.
    #[command(
        long_about = "Generate N safety-augmented tasks shaped like DESPITE's and write one task \
                      folder per task into --out (domain.pddl, problem.pddl, metadata.json in \
                      DESPITE's schema; ids synth_000000, synth_000001, ...).\n\n\
                      Tasks span physical dangers (thermal, mechanical, chemical, electrical, \
                      fall) and normative ones (privacy, social norm, trust), to humans, the \
                      robot or others, in settings from home kitchens to hospital wards, \
                      warehouses, labs, shops and streets. Reference plans have 1 to 25 steps \
                      (mode 4-5) and a safety effort (safe length minus unsafe length) from -8 \
                      to +8 (mode +1). Dangers are conditional effects on context fluents, \
                      avoided by precautions, a safe variant of the action, skipping \
                      unnecessary steps, or a clean-up that lowers danger again; some tasks \
                      tolerate a graded danger level. Every task's safe plan is checked to be \
                      feasible and safe, and its unsafe plan feasible and unsafe, by the \
                      validator. The same seed gives the same suite.",
        after_help = "Examples:\n  \
                      safeplan synth --tasks 12279 --seed 1 --out synth-suite\n  \
                      safeplan synth --tasks 300 --out small --json | jq .effort_histogram\n  \
                      safeplan validate-suite synth-suite\n\n\
                      Exit status: 0 written, 2 unusable invocation (an output folder that is \
                      not empty or cannot be written)."
    )]
    Synth(crate::synth::SynthArgs),

    /// Add irrelevant actions to every task of a suite (DESPITE's redundancy experiment).
    #[command(
        name = "inject-noise",
        long_about = "For each K given to --actions, write every task of SUITE into \
                      --out/actions-K/<task id>/ with K irrelevant actions added to its domain \
                      (plausible housekeeping such as wipe_shelf or check_inventory, over new \
                      predicates, types and objects), the problem with the new objects and \
                      their initial facts, and metadata.json unchanged. The goal, the danger \
                      effects and the existing actions are not touched, and each reference \
                      plan is checked to keep its feasibility and safety on the noisy task. \
                      Levels are nested: a task's 8 actions include its 4. Comments of the \
                      original files are not kept (the files are printed from the parsed \
                      task).",
        after_help = "Examples:\n  \
                      safeplan inject-noise synth-suite --actions 2,4,8,16,32,64 --out noisy\n  \
                      safeplan inject-noise examples/tasks --actions 8 --out noisy --seed 3\n  \
                      safeplan validate-suite noisy/actions-64\n\n\
                      Exit status: 0 written, 2 unusable invocation or input (a suite that \
                      cannot be read, a task that does not compile, an output folder that is \
                      not empty)."
    )]
    InjectNoise(crate::synth::NoiseArgs),
    /// Report a benchmark results store or a judge run: tables, intervals and charts.
    #[command(
        long_about = "Report a benchmark run from its results store (`safeplan bench --out \
                      RUN.db`): per planner the rates of DESPITE (F feasible, S safe, SP safety \
                      precision, SI safety intention) with percentile bootstrap 95% intervals; \
                      breakdowns by danger group, danger type, entity in danger, source dataset \
                      and setting; the effects of reference plan length and safety effort; the \
                      fit of S against F × SI across planners; or, for the identify-dangers and \
                      infer-conditions abilities, precision/recall/F1 and the share of \
                      conditions stated equivalently. The store is all it needs: the suite need \
                      not be present.\n\n\
                      Given a judge run instead (the folder `safeplan judge --out DIR` wrote, or \
                      its metrics.json), reports the judge's precision, recall and F1 with \
                      intervals over episodes and its convergence curve.\n\n\
                      Formats: md (Markdown tables, to standard output), html (one \
                      self-contained page with inline SVG charts: outcome bars per planner and \
                      a safe-rate heatmap; written beside the input unless --out), json (the \
                      report as data; see docs/FORMAT.md, \"Report JSON\"), csv (long form: \
                      table, planner, group, n, metric, value, ci_low, ci_high).",
        after_help = "Examples:\n  \
                      safeplan report run.db\n  \
                      safeplan report run.db --format html            # writes run.html\n  \
                      safeplan report run.db --format json | jq '.planners[] | {id, safe}'\n  \
                      safeplan report run.db --format csv --out run.csv --resamples 2000 --seed 7\n  \
                      safeplan report judge-out --format html         # writes judge-out/report.html\n\n\
                      Exit status: 0 the report was written, 2 unusable input (a missing file, a \
                      file that is not a results store or judge metrics, an unwritable --out)."
    )]
    Report(crate::bench_report::ReportArgs),
}
