//! Rule sets. On to Philadelphia first; the others follow behind the same interfaces.

pub mod otp;
