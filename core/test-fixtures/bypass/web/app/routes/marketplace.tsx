// Fixture for the bypass scan: a route destructuring the model straight from services.
export async function loader({ context }: any) {
  const { Extension } = context.services.database.models;
  return Extension.find({});
}
