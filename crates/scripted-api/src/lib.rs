//! A scripted Anthropic Messages API server: answers by request content, streams SSE, follows a
//! script of turns, so a real agent CLI can run offline in tests and demos.
#![forbid(unsafe_code)]
