// A WebDAV server made of golang.org/x/net/webdav (Debian's
// golang-golang-x-net-dev) and nothing else: the handler over a directory,
// with its in-memory lock system. A subject of scripts/subjects/subject.sh.
//
//	gowebdav -addr 127.0.0.1:18080 -root /tmp/root
package main

import (
	"flag"
	"log"
	"net/http"

	"golang.org/x/net/webdav"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:18080", "listen address")
	root := flag.String("root", ".", "directory served")
	flag.Parse()
	h := &webdav.Handler{FileSystem: webdav.Dir(*root), LockSystem: webdav.NewMemLS()}
	log.Fatal(http.ListenAndServe(*addr, h))
}
