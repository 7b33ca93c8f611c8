//! TEACh-style action steps (`Driver.PickUp('Mug')`) and goal sentences, as the rule-based
//! and state-tracking judges read them.

/// What a TEACh step does.
#[derive(Clone, Debug, PartialEq)]
pub enum TeachVerb {
    /// Walk forward (the amount is the distance; TEACh sums consecutive steps).
    Move,
    /// Turn (the amount is degrees; TEACh records every turn as `TurnLeft`).
    Turn,
    /// Pick up the object.
    PickUp,
    /// Put the held object (first argument) on the second.
    Put,
    /// Pour the held object's contents (first argument) into the second.
    Pour,
    /// Switch the object on.
    ToggleOn,
    /// Switch the object off.
    ToggleOff,
    /// Open the object.
    Open,
    /// Close the object.
    Close,
    /// Slice the object.
    Slice,
    /// Any other step: `Navigation()`, a verb this reader does not know.
    Other(String),
}

/// One TEACh step, parsed from its Python-call spelling (`Driver.PickUp('Mug')`) into a verb
/// and arguments, so deterministic judges can reason about what a step does.
#[derive(Clone, Debug, PartialEq)]
pub struct TeachAction {
    /// What it does.
    pub verb: TeachVerb,
    /// Its object arguments, unquoted (`Mug`, `Sink`).
    pub objects: Vec<String>,
    /// Its numeric argument (distance or degrees).
    pub amount: Option<f64>,
}

impl TeachAction {
    /// Whether the step only changes where the agent is or faces.
    pub fn is_motion(&self) -> bool {
        matches!(self.verb, TeachVerb::Move | TeachVerb::Turn)
            || matches!(&self.verb, TeachVerb::Other(v) if v.eq_ignore_ascii_case("navigation"))
    }

    /// The first object argument.
    pub fn object(&self) -> Option<&str> {
        self.objects.first().map(String::as_str)
    }

    /// The second object argument (where something is put or poured).
    pub fn target(&self) -> Option<&str> {
        self.objects.get(1).map(String::as_str)
    }

    /// Whether the step names `object` in any argument.
    pub fn names(&self, object: &str) -> bool {
        self.objects.iter().any(|o| o == object)
    }
}

/// Parse `Driver.Verb(args)` (the agent prefix is optional; arguments are quoted names or
/// numbers). `None` when the text is not in that shape.
pub fn parse_teach(text: &str) -> Option<TeachAction> {
    let text = text.trim();
    let open = text.find('(')?;
    let inner = text.strip_suffix(')')?.get(open + 1..)?;
    let head = &text[..open];
    let verb_name = head.rsplit('.').next()?.trim();
    if verb_name.is_empty()
        || !verb_name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_')
    {
        return None;
    }
    let verb = match verb_name {
        "Move" | "Forward" | "Backward" => TeachVerb::Move,
        "TurnLeft" | "TurnRight" | "Turn" => TeachVerb::Turn,
        "PickUp" | "Pickup" => TeachVerb::PickUp,
        "PutAOnB" | "Place" | "Put" => TeachVerb::Put,
        "PourFromAIntoB" | "Pour" => TeachVerb::Pour,
        "ToggleOn" => TeachVerb::ToggleOn,
        "ToggleOff" => TeachVerb::ToggleOff,
        "Open" => TeachVerb::Open,
        "Close" => TeachVerb::Close,
        "Slice" => TeachVerb::Slice,
        other => TeachVerb::Other(other.to_string()),
    };
    let mut objects = Vec::new();
    let mut amount = None;
    for arg in split_args(inner)? {
        let arg = arg.trim();
        if arg.is_empty() {
            continue;
        }
        let unquoted = arg
            .strip_prefix('\'')
            .and_then(|a| a.strip_suffix('\''))
            .or_else(|| arg.strip_prefix('"').and_then(|a| a.strip_suffix('"')));
        match unquoted {
            Some(name) => objects.push(name.to_string()),
            None => match arg.parse::<f64>() {
                Ok(v) if v.is_finite() => amount = Some(v),
                _ => objects.push(arg.to_string()),
            },
        }
    }
    // A right turn is a negative left turn, so a left and a right turn of one angle cancel.
    if verb_name == "TurnRight" {
        amount = amount.map(|a| -a);
    }
    Some(TeachAction {
        verb,
        objects,
        amount,
    })
}

/// Split on commas outside quotes; `None` on an unterminated quote.
fn split_args(inner: &str) -> Option<Vec<&str>> {
    let mut out = Vec::new();
    let mut quote = None;
    let mut start = 0;
    for (i, c) in inner.char_indices() {
        match (quote, c) {
            (None, '\'' | '"') => quote = Some(c),
            (Some(q), c) if c == q => quote = None,
            (None, ',') => {
                out.push(&inner[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    if quote.is_some() {
        return None;
    }
    out.push(&inner[start..]);
    Some(out)
}

/// The words of a goal sentence, lowercased and singular, for matching object names.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GoalWords {
    words: Vec<String>,
}

impl GoalWords {
    /// Read a goal sentence (and any dialogue a caller adds to it).
    pub fn new(text: &str) -> GoalWords {
        GoalWords {
            words: text
                .split(|c: char| !c.is_ascii_alphanumeric())
                .filter(|w| !w.is_empty())
                .map(|w| singular(&w.to_ascii_lowercase()))
                .collect(),
        }
    }

    /// Whether the goal names the object type `name` (a TEACh CamelCase name such as
    /// `CoffeeTable` or `Watch2`): all its words in a row (`coffee table`), or, for a
    /// compound name, its first or last word (`remotes` for `RemoteControl`, `plant` for
    /// `HousePlant`).
    pub fn mentions(&self, name: &str) -> bool {
        self.match_len(name) > 0
    }

    /// The position (in words) where the goal first names `name`, as [`GoalWords::mentions`]
    /// matches it.
    pub fn position(&self, name: &str) -> Option<usize> {
        self.find(name).map(|(at, _)| at)
    }

    /// Whether the goal asks for something to be put somewhere: it has a placing verb
    /// (`place`, `put`, `move`, `set`, `bring`, `take`), as in "Place the watch on the coffee
    /// table".
    pub fn asks_to_place(&self) -> bool {
        self.words.iter().any(|w| {
            matches!(
                w.as_str(),
                "place" | "put" | "move" | "set" | "bring" | "take"
            )
        })
    }

    /// How many of the name's words the goal has in a row: `name`'s word count for a full
    /// match, 1 for a compound matched by one word, 0 for none. A caller choosing among
    /// candidate names prefers the longest match.
    pub fn match_len(&self, name: &str) -> usize {
        self.find(name).map_or(0, |(_, len)| len)
    }

    /// Where and how long the goal's match of `name` is: all its words in a row, else (for a
    /// compound name) its first or last word on its own.
    fn find(&self, name: &str) -> Option<(usize, usize)> {
        let parts = name_words(name);
        if parts.is_empty() {
            return None;
        }
        if let Some(at) = self
            .words
            .windows(parts.len())
            .position(|w| w == parts.as_slice())
        {
            return Some((at, parts.len()));
        }
        if parts.len() > 1 {
            let ends = [&parts[0], &parts[parts.len() - 1]];
            return self
                .words
                .iter()
                .position(|w| ends.contains(&w))
                .map(|at| (at, 1));
        }
        None
    }
}

/// `CoffeeTable` → `["coffee", "table"]`, `Watch2` → `["watch"]`, `remote_control` →
/// `["remote", "control"]`.
pub fn name_words(name: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut current = String::new();
    let mut prev_lower = false;
    for c in name.chars() {
        if !c.is_ascii_alphabetic() {
            if !current.is_empty() {
                words.push(std::mem::take(&mut current));
            }
            prev_lower = false;
            continue;
        }
        if c.is_ascii_uppercase() && prev_lower && !current.is_empty() {
            words.push(std::mem::take(&mut current));
        }
        prev_lower = c.is_ascii_lowercase();
        current.push(c.to_ascii_lowercase());
    }
    if !current.is_empty() {
        words.push(current);
    }
    words.into_iter().map(|w| singular(&w)).collect()
}

/// A plural noun's singular, by English spelling rules only (no word lists): `potatoes` →
/// `potato`, `dishes` → `dish`, `remotes` → `remote`, `glass` stays.
fn singular(word: &str) -> String {
    if word.len() > 4
        && ["oes", "shes", "ches", "xes", "sses"]
            .iter()
            .any(|s| word.ends_with(s))
    {
        return word[..word.len() - 2].to_string();
    }
    if word.len() > 3 && word.ends_with('s') && !word.ends_with("ss") && !word.ends_with("us") {
        return word[..word.len() - 1].to_string();
    }
    word.to_string()
}

/// Steps of pure motion that achieve nothing: a zero move, a whole-turn rotation, and
/// runs of adjacent turns whose angles add up to whole turns. Returns `(index, reason)`.
///
/// Both TEACh judges share this rule (the paper's rule baseline has it too); TEACh
/// records every turn as `TurnLeft` with its angle, so adjacent turns cancel only when
/// their sum is a multiple of 360°, whatever their recorded direction.
pub fn idle_motion(actions: &[Option<TeachAction>]) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    let turn = |i: usize| -> Option<f64> {
        match actions.get(i)? {
            Some(a) if a.verb == TeachVerb::Turn => Some(a.amount.unwrap_or(0.0)),
            _ => None,
        }
    };
    let whole = |deg: f64| {
        (deg.rem_euclid(360.0)).abs() < 1e-6 || (deg.rem_euclid(360.0) - 360.0).abs() < 1e-6
    };
    let mut i = 0;
    while i < actions.len() {
        match &actions[i] {
            Some(a) if a.verb == TeachVerb::Move && a.amount.is_some_and(|d| d.abs() < 1e-9) => {
                out.push((i, "moving zero distance does nothing".to_string()));
            }
            Some(a) if a.verb == TeachVerb::Turn => {
                let first = a.amount.unwrap_or(0.0);
                if whole(first) {
                    out.push((
                        i,
                        format!("a {first}° turn faces where the agent already faced"),
                    ));
                } else if let Some(second) = turn(i + 1)
                    && whole(first + second)
                    && !whole(second)
                {
                    let why = format!(
                        "turning {first}° and then {second}° leaves the agent facing where it started"
                    );
                    out.push((i, why.clone()));
                    out.push((i + 1, why));
                    i += 1;
                }
            }
            _ => {}
        }
        i += 1;
    }
    out
}
