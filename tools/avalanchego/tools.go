//go:build tools

// Package tools pins the AvalancheGo release that the real-node test suite
// builds (see docs/real-node.md). Nothing here is compiled into the exporter.
// The imports make go.mod/go.sum record AvalancheGo and its grafted modules
// (coreth, evm, subnet-evm) at one release, so that
// `go build github.com/ava-labs/avalanchego/main` from this directory is
// reproducible. The node runs the primary network (P, X and the coreth
// C-Chain); the local network's L1 runs the Subnet-EVM plugin built from
// ./subnetevm, whose VM is graft/subnet-evm at the same release.
package tools

import (
	_ "github.com/ava-labs/avalanchego/graft/subnet-evm/plugin"
	_ "github.com/ava-labs/avalanchego/main"
)
