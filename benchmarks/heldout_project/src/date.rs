//! Calendar dates as ledgers write them: `2025-03-14`.

use std::fmt;
use std::str::FromStr;

/// The first year a ledger may mention.
pub const MIN_YEAR: u16 = 1970;
/// The last year a ledger may mention.
pub const MAX_YEAR: u16 = 2199;

/// A day of the Gregorian calendar.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Date {
    pub year: u16,
    pub month: u8,
    pub day: u8,
}

/// Why a text is not a date.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DateError {
    Shape(String),
    OutOfRange(String),
}

impl fmt::Display for DateError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DateError::Shape(text) => write!(f, "expected YYYY-MM-DD, found {text:?}"),
            DateError::OutOfRange(text) => write!(f, "no such day: {text:?}"),
        }
    }
}

impl std::error::Error for DateError {}

pub fn is_leap_year(year: u16) -> bool {
    (year % 4 == 0 && year % 100 != 0) || year % 400 == 0
}

pub fn days_in_month(year: u16, month: u8) -> u8 {
    match month {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if is_leap_year(year) => 29,
        2 => 28,
        _ => 0,
    }
}

impl Date {
    /// A date, if it exists.
    pub fn new(year: u16, month: u8, day: u8) -> Option<Date> {
        let valid = (MIN_YEAR..=MAX_YEAR).contains(&year)
            && (1..=12).contains(&month)
            && day >= 1
            && day <= days_in_month(year, month);
        valid.then_some(Date { year, month, day })
    }

    /// `(year, month)`: the key of monthly reports.
    pub fn month_key(self) -> (u16, u8) {
        (self.year, self.month)
    }
}

impl FromStr for Date {
    type Err = DateError;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let shape = || DateError::Shape(text.to_string());
        let mut parts = text.split('-');
        let (Some(y), Some(m), Some(d), None) = (parts.next(), parts.next(), parts.next(), parts.next())
        else {
            return Err(shape());
        };
        if y.len() != 4 || m.len() != 2 || d.len() != 2 {
            return Err(shape());
        }
        let year = y.parse().map_err(|_| shape())?;
        let month = m.parse().map_err(|_| shape())?;
        let day = d.parse().map_err(|_| shape())?;
        Date::new(year, month, day).ok_or_else(|| DateError::OutOfRange(text.to_string()))
    }
}

impl fmt::Display for Date {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:04}-{:02}-{:02}", self.year, self.month, self.day)
    }
}
