// Fixture for the bypass scan: the allowed reader may query the collection.
export const read = (models: any, filter: object) => models.Extension.find(filter);
