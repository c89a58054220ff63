//go:build tools

// Package tools pins AvalancheGo v1.10.19 (coreth v0.12.x was still a separate module then).
// Only github.com/ava-labs/avalanchego/main is built; see go.mod for the two build fixes.
package tools

import _ "github.com/ava-labs/avalanchego/main"
