//! One spelling per enum value: [`named_enum!`] gives a fieldless enum its `ALL`, `name()`,
//! `Display` and `FromStr` from one table, so the command line, JSON, tables and the demo all
//! say the same word.

/// `named_enum!(Type "noun" { Variant => "name", ... })`: `Type::ALL` (declaration order),
/// `Type::name()`, `Display` (the name) and `FromStr` (an error naming the noun and the
/// choices).
macro_rules! named_enum {
    ($ty:ident $noun:literal { $($variant:ident => $name:literal),+ $(,)? }) => {
        impl $ty {
            /// Every value, in declaration order.
            pub const ALL: [$ty; [$($name),+].len()] = [$($ty::$variant),+];

            /// Its one spelling (command line, JSON, tables).
            pub fn name(self) -> &'static str {
                match self {
                    $($ty::$variant => $name),+
                }
            }
        }

        impl std::fmt::Display for $ty {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.name())
            }
        }

        impl std::str::FromStr for $ty {
            type Err = String;
            fn from_str(s: &str) -> std::result::Result<Self, String> {
                Self::ALL.into_iter().find(|v| v.name() == s).ok_or_else(|| {
                    format!(
                        "unknown {} {s:?} (expected {})",
                        $noun,
                        $crate::names::choices(&Self::ALL.map(|v| v.name()))
                    )
                })
            }
        }
    };
}

pub(crate) use named_enum;

/// `a`, `a or b`, `a, b or c`.
pub(crate) fn choices(names: &[&str]) -> String {
    match names {
        [] => String::new(),
        [one] => one.to_string(),
        [rest @ .., last] => format!("{} or {last}", rest.join(", ")),
    }
}
