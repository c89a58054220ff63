// Command subnetevm is the Subnet-EVM VM plugin that the real-node tests run on their L1
// (test/real-node/build.ts builds it into the plugin directory, named by the VM's ID). It is
// graft/subnet-evm's plugin/main.go at the pinned release, with one difference: the upstream
// runner raises the soft RLIMIT_NOFILE to 32768 and exits when the hard limit is lower ("failed
// to set fd limit correctly due to: error fd-limit: (32768) greater than max: (20000)", in a
// container whose root lacks CAP_SYS_RESOURCE). The node has --fd-limit for that; the plugin has
// no flag. Here the soft limit goes to the hard one when that is lower. The VM, its version flag
// and the RPC chain VM server are the upstream packages, unchanged.
package main

import (
	"context"
	"fmt"
	"os"
	"syscall"

	"github.com/ava-labs/avalanchego/graft/subnet-evm/plugin/evm"
	"github.com/ava-labs/avalanchego/graft/subnet-evm/plugin/runner"
	"github.com/ava-labs/avalanchego/utils/ulimit"
	"github.com/ava-labs/avalanchego/version"
	"github.com/ava-labs/avalanchego/vms/rpcchainvm"
)

func main() {
	evm.RegisterAllLibEVMExtras()

	printVersion, err := runner.PrintVersion()
	if err != nil {
		fmt.Printf("couldn't get config: %s", err)
		os.Exit(1)
	}
	if printVersion {
		fmt.Printf("Subnet-EVM/%s [rpcchainvm=%d]\n", version.Current.SemanticWithCommit(version.GitCommit), version.RPCChainVMProtocol)
		os.Exit(0)
	}
	if err := raiseFileLimit(ulimit.DefaultFDLimit); err != nil {
		fmt.Printf("failed to set fd limit correctly due to: %s", err)
		os.Exit(1)
	}
	if err := rpcchainvm.Serve(context.Background(), &evm.VM{}); err != nil {
		fmt.Printf("failed to serve VM: %s", err)
		os.Exit(1)
	}
}

// raiseFileLimit sets the soft RLIMIT_NOFILE to limit, or to the hard limit when that is lower.
func raiseFileLimit(limit uint64) error {
	var rLimit syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &rLimit); err != nil {
		return fmt.Errorf("error getting rlimit: %w", err)
	}
	rLimit.Cur = min(limit, rLimit.Max)
	if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &rLimit); err != nil {
		return fmt.Errorf("error setting fd-limit: %w", err)
	}
	return nil
}
