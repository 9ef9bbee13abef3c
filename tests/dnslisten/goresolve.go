// SPDX-License-Identifier: MIT
// tests/dnslisten/goresolve.go - Go's pure resolver against the DNS listener.
//
// Built by clients.py with CGO_ENABLED=0 and -tags netgo: the binary is
// static and can only resolve through Go's own DNS client, which reads
// /etc/resolv.conf (clients.py's, bound inside a private mount namespace).
// Standard library only.
//
//	goresolve OP NAME [OP NAME]...
//
// OP: ip (LookupIPAddr: A and AAAA), ip4 / ip6 (LookupIP with "ip4" or
// "ip6": one type), addr (LookupAddr: PTR), mx (LookupMX).  One JSON
// object a line: {"op", "name", "result": [...], "err", "notfound"}.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"time"
)

type result struct {
	Op       string   `json:"op"`
	Name     string   `json:"name"`
	Result   []string `json:"result"`
	Err      string   `json:"err,omitempty"`
	NotFound bool     `json:"notfound"`
}

func main() {
	args := os.Args[1:]
	if len(args) == 0 || len(args)%2 != 0 {
		fmt.Fprintln(os.Stderr, "usage: goresolve OP NAME [OP NAME]...")
		os.Exit(2)
	}
	r := &net.Resolver{PreferGo: true, StrictErrors: true}
	out := json.NewEncoder(os.Stdout)
	for i := 0; i < len(args); i += 2 {
		op, name := args[i], args[i+1]
		// A liveness bound: past it the listener is hung, not slow.
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		res := result{Op: op, Name: name, Result: []string{}}
		var err error
		switch op {
		case "ip":
			var ips []net.IPAddr
			ips, err = r.LookupIPAddr(ctx, name)
			for _, ip := range ips {
				res.Result = append(res.Result, ip.IP.String())
			}
		case "ip4", "ip6":
			var ips []net.IP
			ips, err = r.LookupIP(ctx, op, name)
			for _, ip := range ips {
				res.Result = append(res.Result, ip.String())
			}
		case "addr":
			var names []string
			names, err = r.LookupAddr(ctx, name)
			res.Result = append(res.Result, names...)
		case "mx":
			var mxs []*net.MX
			mxs, err = r.LookupMX(ctx, name)
			for _, mx := range mxs {
				res.Result = append(res.Result, fmt.Sprintf("%d %s", mx.Pref, mx.Host))
			}
		default:
			fmt.Fprintf(os.Stderr, "goresolve: unknown op %q\n", op)
			os.Exit(2)
		}
		cancel()
		if err != nil {
			res.Err = err.Error()
			var de *net.DNSError
			if errors.As(err, &de) {
				res.NotFound = de.IsNotFound
			}
		}
		if err := out.Encode(res); err != nil {
			os.Exit(1)
		}
	}
}
