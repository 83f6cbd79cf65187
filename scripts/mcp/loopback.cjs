// Preloaded (node --require) into a server that calls listen(port) with no host, such as
// @modelcontextprotocol/server-everything: it then binds 127.0.0.1 only, never every interface.
"use strict";
const net = require("node:net");
const listen = net.Server.prototype.listen;
net.Server.prototype.listen = function (...args) {
  if ((typeof args[0] === "number" || typeof args[0] === "string") && typeof args[1] !== "string") {
    args.splice(1, 0, "127.0.0.1");
  } else if (
    typeof args[0] === "object" &&
    args[0] !== null &&
    args[0].host === undefined &&
    args[0].path === undefined
  ) {
    args[0] = { ...args[0], host: "127.0.0.1" };
  }
  return listen.apply(this, args);
};
