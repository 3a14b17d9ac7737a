//! Skill evaluation: scenarios, agent adapters, tamper-evident evidence and the scripted Messages API
//! server used to run the real agent CLI offline.
#![forbid(unsafe_code)]
