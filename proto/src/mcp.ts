// Records, request schemas and NATS operations of the mcp service.
export {};
