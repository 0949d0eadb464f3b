//! Amounts of money, kept in cents so that sums are exact.

use std::fmt;
use std::iter::Sum;
use std::ops::{Add, AddAssign, Neg, Sub};
use std::str::FromStr;

/// Cents in one unit of currency.
pub const SCALE: i64 = 100;
/// The largest amount one posting may carry, in whole units.
pub const MAX_UNITS: i64 = 1_000_000;

/// An amount of money in cents. Negative amounts leave an account.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Amount {
    cents: i64,
}

impl Amount {
    /// No money at all.
    pub const ZERO: Amount = Amount { cents: 0 };

    /// An amount of `cents` cents.
    pub fn from_cents(cents: i64) -> Self {
        Amount { cents }
    }

    /// The amount in cents.
    pub fn cents(self) -> i64 {
        self.cents
    }

    pub fn is_zero(self) -> bool {
        self.cents == 0
    }

    pub fn is_negative(self) -> bool {
        self.cents < 0
    }

    pub fn abs(self) -> Self {
        Amount { cents: self.cents.abs() }
    }

    /// Split into `parts` amounts that add up to this one exactly; the first ones
    /// take the cents that do not divide evenly.
    pub fn split(self, parts: usize) -> Vec<Amount> {
        if parts == 0 {
            return Vec::new();
        }
        let n = parts as i64;
        let base = self.cents / n;
        let rest = self.cents % n;
        (0..n)
            .map(|i| Amount::from_cents(base + if i < rest.abs() { rest.signum() } else { 0 }))
            .collect()
    }

    /// The share `ratio` of this amount, rounded half away from zero.
    pub fn scale(self, ratio: f64) -> Self {
        Amount::from_cents((self.cents as f64 * ratio).round() as i64)
    }
}

/// Why a text is not an amount.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AmountError {
    Empty,
    NotANumber(String),
    TooManyDecimals(String),
    TooLarge(String),
}

impl fmt::Display for AmountError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AmountError::Empty => write!(f, "empty amount"),
            AmountError::NotANumber(text) => write!(f, "not a number: {text:?}"),
            AmountError::TooManyDecimals(text) => {
                write!(f, "more than two decimals: {text:?}")
            }
            AmountError::TooLarge(text) => write!(f, "amount too large: {text:?}"),
        }
    }
}

impl std::error::Error for AmountError {}

impl FromStr for Amount {
    type Err = AmountError;

    /// `12`, `12.5`, `-3.75`, `1_200.00`; at most two decimals.
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let text = text.trim();
        if text.is_empty() {
            return Err(AmountError::Empty);
        }
        let (negative, digits) = match text.strip_prefix('-') {
            Some(rest) => (true, rest),
            None => (false, text),
        };
        let (units, fraction) = digits.split_once('.').unwrap_or((digits, ""));
        let units = units.replace('_', "");
        let valid = |s: &str| s.chars().all(|c| c.is_ascii_digit());
        if units.is_empty() || !valid(&units) || !valid(fraction) {
            return Err(AmountError::NotANumber(text.to_string()));
        }
        if fraction.len() > 2 {
            return Err(AmountError::TooManyDecimals(text.to_string()));
        }
        let units: i64 = units.parse().map_err(|_| AmountError::TooLarge(text.to_string()))?;
        if units > MAX_UNITS {
            return Err(AmountError::TooLarge(text.to_string()));
        }
        let cents = match fraction.len() {
            0 => 0,
            1 => fraction.parse::<i64>().unwrap_or(0) * 10,
            _ => fraction.parse::<i64>().unwrap_or(0),
        };
        let total = units * SCALE + cents;
        Ok(Amount::from_cents(if negative { -total } else { total }))
    }
}

impl fmt::Display for Amount {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let sign = if self.cents < 0 { "-" } else { "" };
        let cents = self.cents.abs();
        let text = format!("{sign}{}.{:02}", cents / SCALE, cents % SCALE);
        f.pad(&text)
    }
}

impl Add for Amount {
    type Output = Amount;
    fn add(self, other: Amount) -> Amount {
        Amount::from_cents(self.cents + other.cents)
    }
}

impl AddAssign for Amount {
    fn add_assign(&mut self, other: Amount) {
        self.cents += other.cents;
    }
}

impl Sub for Amount {
    type Output = Amount;
    fn sub(self, other: Amount) -> Amount {
        Amount::from_cents(self.cents - other.cents)
    }
}

impl Neg for Amount {
    type Output = Amount;
    fn neg(self) -> Amount {
        Amount::from_cents(-self.cents)
    }
}

impl Sum for Amount {
    fn sum<I: Iterator<Item = Amount>>(iter: I) -> Amount {
        iter.fold(Amount::ZERO, Add::add)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_and_prints() {
        let amount: Amount = "1_200.5".parse().unwrap();
        assert_eq!(amount.cents(), 120_050);
        assert_eq!(amount.to_string(), "1200.50");
        assert_eq!("-0.07".parse::<Amount>().unwrap().to_string(), "-0.07");
    }

    #[test]
    fn split_keeps_every_cent() {
        let parts = Amount::from_cents(100).split(3);
        assert_eq!(parts, vec![Amount::from_cents(34), Amount::from_cents(33), Amount::from_cents(33)]);
        assert_eq!(parts.into_iter().sum::<Amount>(), Amount::from_cents(100));
    }
}
