export async function stopInReverse(components, onError) {
    for (const component of [...components].reverse()) {
        try {
            await component.stop();
        }
        catch (err) {
            onError(component.name, err);
        }
    }
}
