// npm webdav-server (v2 API) as a subject of scripts/subjects/subject.sh:
//   NODE_PATH=.../node_modules node server.js ROOT PORT
// A physical file system rooted at ROOT, no authentication (the default
// PrivilegeManager grants every privilege), bound to 127.0.0.1:PORT.
const webdav = require('webdav-server').v2;
const [root, port] = process.argv.slice(2);
const server = new webdav.WebDAVServer({
  hostname: '127.0.0.1',
  port: Number(port),
  rootFileSystem: new webdav.PhysicalFileSystem(root),
});
server.start(() => console.log(`webdav-server on 127.0.0.1:${port}, root ${root}`));
