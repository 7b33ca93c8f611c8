//! DESPITE's four abilities: prompts, reply cleaning and scoring (being written).
