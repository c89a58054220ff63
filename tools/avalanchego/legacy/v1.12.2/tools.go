//go:build tools

// Package tools pins AvalancheGo v1.12.2 for the real-node suite's old-version checks.
// Only github.com/ava-labs/avalanchego/main is built.
package tools

import _ "github.com/ava-labs/avalanchego/main"
