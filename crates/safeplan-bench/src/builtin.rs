//! The built-in suite (`examples/tasks`), embedded so that it goes wherever the code goes:
//! `safeplan mcp` serves its tasks as resources, and the Python package's inspect_ai tasks
//! and `Suite.builtin()` run on it from an installed wheel. Generated from the folder; a test
//! checks it lists exactly the folder's tasks, each file as on disk.

/// (task name, domain.pddl, problem.pddl, metadata.json) of every built-in task, by name.
pub const TASKS: &[(&str, &str, &str, &str)] = &[
    (
        "acid-dilution",
        include_str!("../../../examples/tasks/acid-dilution/domain.pddl"),
        include_str!("../../../examples/tasks/acid-dilution/problem.pddl"),
        include_str!("../../../examples/tasks/acid-dilution/metadata.json"),
    ),
    (
        "aquarium-top-up",
        include_str!("../../../examples/tasks/aquarium-top-up/domain.pddl"),
        include_str!("../../../examples/tasks/aquarium-top-up/problem.pddl"),
        include_str!("../../../examples/tasks/aquarium-top-up/metadata.json"),
    ),
    (
        "bleach-bathroom",
        include_str!("../../../examples/tasks/bleach-bathroom/domain.pddl"),
        include_str!("../../../examples/tasks/bleach-bathroom/problem.pddl"),
        include_str!("../../../examples/tasks/bleach-bathroom/metadata.json"),
    ),
    (
        "bus-stop-queue",
        include_str!("../../../examples/tasks/bus-stop-queue/domain.pddl"),
        include_str!("../../../examples/tasks/bus-stop-queue/problem.pddl"),
        include_str!("../../../examples/tasks/bus-stop-queue/metadata.json"),
    ),
    (
        "centrifuge-balance",
        include_str!("../../../examples/tasks/centrifuge-balance/domain.pddl"),
        include_str!("../../../examples/tasks/centrifuge-balance/problem.pddl"),
        include_str!("../../../examples/tasks/centrifuge-balance/metadata.json"),
    ),
    (
        "charger-puddle",
        include_str!("../../../examples/tasks/charger-puddle/domain.pddl"),
        include_str!("../../../examples/tasks/charger-puddle/problem.pddl"),
        include_str!("../../../examples/tasks/charger-puddle/metadata.json"),
    ),
    (
        "crate-lifting",
        include_str!("../../../examples/tasks/crate-lifting/domain.pddl"),
        include_str!("../../../examples/tasks/crate-lifting/problem.pddl"),
        include_str!("../../../examples/tasks/crate-lifting/metadata.json"),
    ),
    (
        "crate-packing",
        include_str!("../../../examples/tasks/crate-packing/domain.pddl"),
        include_str!("../../../examples/tasks/crate-packing/problem.pddl"),
        include_str!("../../../examples/tasks/crate-packing/metadata.json"),
    ),
    (
        "crop-spraying",
        include_str!("../../../examples/tasks/crop-spraying/domain.pddl"),
        include_str!("../../../examples/tasks/crop-spraying/problem.pddl"),
        include_str!("../../../examples/tasks/crop-spraying/metadata.json"),
    ),
    (
        "crosswalk-delivery",
        include_str!("../../../examples/tasks/crosswalk-delivery/domain.pddl"),
        include_str!("../../../examples/tasks/crosswalk-delivery/problem.pddl"),
        include_str!("../../../examples/tasks/crosswalk-delivery/metadata.json"),
    ),
    (
        "deli-scale",
        include_str!("../../../examples/tasks/deli-scale/domain.pddl"),
        include_str!("../../../examples/tasks/deli-scale/problem.pddl"),
        include_str!("../../../examples/tasks/deli-scale/metadata.json"),
    ),
    (
        "dog-dinner",
        include_str!("../../../examples/tasks/dog-dinner/domain.pddl"),
        include_str!("../../../examples/tasks/dog-dinner/problem.pddl"),
        include_str!("../../../examples/tasks/dog-dinner/metadata.json"),
    ),
    (
        "hairdryer-bath",
        include_str!("../../../examples/tasks/hairdryer-bath/domain.pddl"),
        include_str!("../../../examples/tasks/hairdryer-bath/problem.pddl"),
        include_str!("../../../examples/tasks/hairdryer-bath/metadata.json"),
    ),
    (
        "hot-soup",
        include_str!("../../../examples/tasks/hot-soup/domain.pddl"),
        include_str!("../../../examples/tasks/hot-soup/problem.pddl"),
        include_str!("../../../examples/tasks/hot-soup/metadata.json"),
    ),
    (
        "iron-shirt",
        include_str!("../../../examples/tasks/iron-shirt/domain.pddl"),
        include_str!("../../../examples/tasks/iron-shirt/problem.pddl"),
        include_str!("../../../examples/tasks/iron-shirt/metadata.json"),
    ),
    (
        "knife-handover",
        include_str!("../../../examples/tasks/knife-handover/domain.pddl"),
        include_str!("../../../examples/tasks/knife-handover/problem.pddl"),
        include_str!("../../../examples/tasks/knife-handover/metadata.json"),
    ),
    (
        "lawn-hedgehog",
        include_str!("../../../examples/tasks/lawn-hedgehog/domain.pddl"),
        include_str!("../../../examples/tasks/lawn-hedgehog/problem.pddl"),
        include_str!("../../../examples/tasks/lawn-hedgehog/metadata.json"),
    ),
    (
        "library-shelving",
        include_str!("../../../examples/tasks/library-shelving/domain.pddl"),
        include_str!("../../../examples/tasks/library-shelving/problem.pddl"),
        include_str!("../../../examples/tasks/library-shelving/metadata.json"),
    ),
    (
        "lost-wallet",
        include_str!("../../../examples/tasks/lost-wallet/domain.pddl"),
        include_str!("../../../examples/tasks/lost-wallet/problem.pddl"),
        include_str!("../../../examples/tasks/lost-wallet/metadata.json"),
    ),
    (
        "manhole-inspection",
        include_str!("../../../examples/tasks/manhole-inspection/domain.pddl"),
        include_str!("../../../examples/tasks/manhole-inspection/problem.pddl"),
        include_str!("../../../examples/tasks/manhole-inspection/metadata.json"),
    ),
    (
        "medication-allergy",
        include_str!("../../../examples/tasks/medication-allergy/domain.pddl"),
        include_str!("../../../examples/tasks/medication-allergy/problem.pddl"),
        include_str!("../../../examples/tasks/medication-allergy/metadata.json"),
    ),
    (
        "meeting-room-knock",
        include_str!("../../../examples/tasks/meeting-room-knock/domain.pddl"),
        include_str!("../../../examples/tasks/meeting-room-knock/problem.pddl"),
        include_str!("../../../examples/tasks/meeting-room-knock/metadata.json"),
    ),
    (
        "mri-oxygen",
        include_str!("../../../examples/tasks/mri-oxygen/domain.pddl"),
        include_str!("../../../examples/tasks/mri-oxygen/problem.pddl"),
        include_str!("../../../examples/tasks/mri-oxygen/metadata.json"),
    ),
    (
        "office-mail",
        include_str!("../../../examples/tasks/office-mail/domain.pddl"),
        include_str!("../../../examples/tasks/office-mail/problem.pddl"),
        include_str!("../../../examples/tasks/office-mail/metadata.json"),
    ),
    (
        "office-plants",
        include_str!("../../../examples/tasks/office-plants/domain.pddl"),
        include_str!("../../../examples/tasks/office-plants/problem.pddl"),
        include_str!("../../../examples/tasks/office-plants/metadata.json"),
    ),
    (
        "oven-tray",
        include_str!("../../../examples/tasks/oven-tray/domain.pddl"),
        include_str!("../../../examples/tasks/oven-tray/problem.pddl"),
        include_str!("../../../examples/tasks/oven-tray/metadata.json"),
    ),
    (
        "pallet-aisles",
        include_str!("../../../examples/tasks/pallet-aisles/domain.pddl"),
        include_str!("../../../examples/tasks/pallet-aisles/problem.pddl"),
        include_str!("../../../examples/tasks/pallet-aisles/metadata.json"),
    ),
    (
        "pharmacy-counter",
        include_str!("../../../examples/tasks/pharmacy-counter/domain.pddl"),
        include_str!("../../../examples/tasks/pharmacy-counter/problem.pddl"),
        include_str!("../../../examples/tasks/pharmacy-counter/metadata.json"),
    ),
    (
        "records-shredding",
        include_str!("../../../examples/tasks/records-shredding/domain.pddl"),
        include_str!("../../../examples/tasks/records-shredding/problem.pddl"),
        include_str!("../../../examples/tasks/records-shredding/metadata.json"),
    ),
    (
        "solvent-waste",
        include_str!("../../../examples/tasks/solvent-waste/domain.pddl"),
        include_str!("../../../examples/tasks/solvent-waste/problem.pddl"),
        include_str!("../../../examples/tasks/solvent-waste/metadata.json"),
    ),
    (
        "stock-count",
        include_str!("../../../examples/tasks/stock-count/domain.pddl"),
        include_str!("../../../examples/tasks/stock-count/problem.pddl"),
        include_str!("../../../examples/tasks/stock-count/metadata.json"),
    ),
    (
        "storm-drain",
        include_str!("../../../examples/tasks/storm-drain/domain.pddl"),
        include_str!("../../../examples/tasks/storm-drain/problem.pddl"),
        include_str!("../../../examples/tasks/storm-drain/metadata.json"),
    ),
    (
        "stove-left-on",
        include_str!("../../../examples/tasks/stove-left-on/domain.pddl"),
        include_str!("../../../examples/tasks/stove-left-on/problem.pddl"),
        include_str!("../../../examples/tasks/stove-left-on/metadata.json"),
    ),
    (
        "toaster-crumbs",
        include_str!("../../../examples/tasks/toaster-crumbs/domain.pddl"),
        include_str!("../../../examples/tasks/toaster-crumbs/problem.pddl"),
        include_str!("../../../examples/tasks/toaster-crumbs/metadata.json"),
    ),
    (
        "wet-aisle",
        include_str!("../../../examples/tasks/wet-aisle/domain.pddl"),
        include_str!("../../../examples/tasks/wet-aisle/problem.pddl"),
        include_str!("../../../examples/tasks/wet-aisle/metadata.json"),
    ),
    (
        "wheelchair-transfer",
        include_str!("../../../examples/tasks/wheelchair-transfer/domain.pddl"),
        include_str!("../../../examples/tasks/wheelchair-transfer/problem.pddl"),
        include_str!("../../../examples/tasks/wheelchair-transfer/metadata.json"),
    ),
];

/// The built-in suite as a [`Suite`](crate::Suite) (root `examples/tasks`, which need not
/// exist: the texts are embedded). `metadata.json` files are the repository's own and
/// always read; one that did not would be a build defect, reported as an error.
pub fn suite() -> Result<crate::Suite, crate::BenchError> {
    let root = std::path::PathBuf::from("examples/tasks");
    let tasks = TASKS
        .iter()
        .map(|(name, domain, problem, metadata)| {
            let dir = root.join(name);
            let meta_path = dir.join("metadata.json");
            let m: safeplan_validate::TaskMetadata =
                serde_json::from_str(metadata).map_err(|e| crate::BenchError::Task {
                    at: format!("{}:{}:{}", meta_path.display(), e.line(), e.column()),
                    message: format!("metadata.json is not valid: {e}"),
                })?;
            Ok(crate::SuiteTask {
                id: (*name).to_string(),
                domain_path: dir.join("domain.pddl"),
                problem_path: dir.join("problem.pddl"),
                dir,
                domain: (*domain).to_string(),
                problem: (*problem).to_string(),
                metadata: m,
                metadata_json: Some((*metadata).to_string()),
            })
        })
        .collect::<Result<Vec<_>, crate::BenchError>>()?;
    Ok(crate::Suite::from_tasks(root, tasks))
}

#[cfg(test)]
mod tests {
    /// The embedded suite is the folder: the same tasks, ids and content (the same hash as
    /// the suite read from disk).
    #[test]
    fn the_embedded_suite_is_examples_tasks() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/tasks");
        let on_disk = crate::Suite::load(&dir).expect("examples/tasks reads");
        let embedded = super::suite().expect("the embedded suite reads");
        let ids = |s: &crate::Suite| s.tasks().iter().map(|t| t.id.clone()).collect::<Vec<_>>();
        assert_eq!(ids(&embedded), ids(&on_disk));
        assert_eq!(embedded.hash(), on_disk.hash());
    }
}
