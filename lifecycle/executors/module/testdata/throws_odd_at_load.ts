// Throws, at its top level, a Proxy whose every trap throws.
const trap = (): never => {
  throw new Proxy({}, { get: trap, getPrototypeOf: trap });
};
throw new Proxy({}, { get: trap, getPrototypeOf: trap, getOwnPropertyDescriptor: trap });
