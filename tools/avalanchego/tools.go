//go:build tools

// Package tools pins the AvalancheGo release that the real-node test suite
// builds (see docs/real-node.md). Nothing here is compiled into the exporter.
// The imports make go.mod/go.sum record AvalancheGo and its grafted modules
// (coreth, evm, subnet-evm) at one release, so that
// `go build github.com/ava-labs/avalanchego/main` from this directory is
// reproducible. Only the node binary is built: the local network runs the
// primary network (P, X and the coreth C-Chain) and needs no VM plugins;
// subnet-evm is pinned so the set of grafted modules stays at one version.
package tools

import (
	_ "github.com/ava-labs/avalanchego/graft/subnet-evm/plugin"
	_ "github.com/ava-labs/avalanchego/main"
)
