# For `npm install` of `npm pack`'s tarball on a host with libnamecache-dev
# (the meson build does not use this file).
{
  "targets": [{
    "target_name": "namecache",
    "sources": ["namecache_node.c"],
    "libraries": ["<!@(pkg-config --libs namecache)"],
    "cflags": ["<!@(pkg-config --cflags namecache)"]
  }]
}
