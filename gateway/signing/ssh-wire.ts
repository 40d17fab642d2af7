// Moved to the client package (clients/typescript, @access-gateway/signing); re-exported for the gateway's imports.
export * from '@access-gateway/signing/ssh-wire';
