//! An LLM as a planner (being written).
