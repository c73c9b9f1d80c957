//! Tests of Purky's rules, each citing its rule.
