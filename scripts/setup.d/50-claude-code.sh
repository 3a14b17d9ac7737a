#!/usr/bin/env bash
# Installs the Claude Code CLI (`claude`, npm package @anthropic-ai/claude-code 2.1.x) so the
# scripted-API end-to-end tests and `warrant eval` can run the real agent offline.
#
# Idempotent: does nothing when a 2.1.x `claude` is already on PATH. Only the npm registry is
# used: the native binary comes in the platform package (@anthropic-ai/claude-code-linux-x64 and
# friends, an optional dependency of the main package, ~370 MB unpacked); the main package's
# postinstall (install.cjs) only links that binary into place and downloads nothing.
set -euo pipefail

CLAUDE_CODE_VERSION="${CLAUDE_CODE_VERSION:-2.1.332}"
PKG="@anthropic-ai/claude-code"

installed_version() {
    command -v claude >/dev/null 2>&1 || return 1
    # `claude --version` prints e.g. "2.1.332 (Claude Code)".
    timeout 60 claude --version 2>/dev/null | awk '{print $1; exit}'
}

if v="$(installed_version)" && [[ "$v" == 2.1.* ]]; then
    echo "50-claude-code: claude $v already installed"
    exit 0
fi

if ! command -v npm >/dev/null 2>&1; then
    if ! dpkg -s nodejs npm >/dev/null 2>&1; then
        apt-get update
    fi
    DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends nodejs npm
fi

echo "50-claude-code: installing $PKG@$CLAUDE_CODE_VERSION from the npm registry"
npm install -g --no-audit --no-fund --include=optional "$PKG@$CLAUDE_CODE_VERSION"

# Newer npm releases may skip install scripts that are not allow-listed; the postinstall only
# links the platform package's native binary over the bin/claude.exe placeholder, so run it
# ourselves when the placeholder is still in place. It downloads nothing.
if ! installed_version >/dev/null; then
    pkg_dir="$(npm root -g)/$PKG"
    echo "50-claude-code: running $pkg_dir/install.cjs (postinstall was skipped)"
    (cd "$pkg_dir" && node install.cjs)
fi

if ! v="$(installed_version)" || [[ "$v" != 2.1.* ]]; then
    echo "50-claude-code: claude is not runnable after install (got '${v:-nothing}');" \
         "check that the platform package ${PKG}-linux-$(uname -m | sed 's/x86_64/x64/;s/aarch64/arm64/') was installed" >&2
    exit 1
fi
echo "50-claude-code: claude $v installed at $(command -v claude)"
