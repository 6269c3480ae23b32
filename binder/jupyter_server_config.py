# Open the tour when the binder (or any Jupyter server started in the repository root with
# this config) opens without a ?urlpath=. postBuild copies this file to ~/.jupyter/.
# Each front end has its own default_url, and it overrides ServerApp's when that front
# end is the app started: `jupyter lab` reads LabApp's, `jupyter notebook` (Notebook 7)
# JupyterNotebookApp's; jupyter server alone and jupyterhub-singleuser read ServerApp's.
c = get_config()  # noqa: F821 (defined by Jupyter when it loads this file)

TOUR = "notebooks/01_tour.ipynb"
c.ServerApp.default_url = f"/lab/tree/{TOUR}"
c.LabApp.default_url = f"/lab/tree/{TOUR}"
c.JupyterNotebookApp.default_url = f"/notebooks/{TOUR}"
